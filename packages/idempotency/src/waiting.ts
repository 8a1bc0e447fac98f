import { IdempotencyInProgressError } from './errors.js';
import type { Call } from './call.js';
import type { IdempotencyStore } from './store.js';

/** Longest a waiter sleeps between claims when no notification arrives (a safety net, not the wake-up path). */
const MAX_WAIT_POLL_MS = 1_000;

/** A sleep that a notification ends early; a notification that arrives while awake is not lost. */
export class Waiter {
  private pending = false;
  private resolve: (() => void) | undefined;

  wake(): void {
    if (this.resolve) {
      this.resolve();
      this.resolve = undefined;
    } else {
      this.pending = true;
    }
  }

  async sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(
        () => {
          this.resolve = undefined;
          resolve();
        },
        Math.max(0, ms),
      );
      this.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * Waiting in `wait` mode for another owner: subscribes to the record's completion once (push), else sleeps until
 * the owner's lease ends or the poll cap, and gives up with `IDEMPOTENCY_IN_PROGRESS` after `waitTimeoutMs`.
 */
export class InFlightWait {
  private waiter: Waiter | undefined;
  private stopWatching: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly call: Call<unknown>,
    private readonly onWatchError: () => void,
  ) {}

  /**
   * Returns when it is time to claim again.
   * @throws IdempotencyInProgressError once `waitTimeoutMs` has passed since the call started.
   */
  async next(retryAfterMs: number): Promise<void> {
    const remainingMs = this.call.startedAt + this.call.settings.waitTimeoutMs - Date.now();
    if (remainingMs <= 0) throw new IdempotencyInProgressError(retryAfterMs, this.call);
    const waiter = (this.waiter ??= new Waiter());
    if (!this.stopWatching && this.store.watch) {
      try {
        this.stopWatching = await this.store.watch(this.call, () => waiter.wake());
        // Subscribed after the last claim: claim again at once, or a completion in between would be missed.
        return;
      } catch {
        // Without push the timer below still bounds the wait.
        this.onWatchError();
        this.stopWatching = async () => {};
      }
    }
    // Woken by the owner's complete/release; else at the end of its lease (a crash) or the poll cap.
    await waiter.sleep(Math.min(retryAfterMs + 1, remainingMs, MAX_WAIT_POLL_MS));
  }

  /** Ends the subscription, if any, without waiting for it: the caller has its answer already. */
  stop(): void {
    this.stopWatching?.().catch(() => undefined);
  }
}
