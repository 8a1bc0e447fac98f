import { IdempotencyLeaseLostError } from './errors.js';
import { IdempotencyEventType, type IdempotencyEvent } from './options.js';
import type { IdempotencyStore, RenewRequest } from './store.js';

const DEADLINE_SLACK_MS = 1;

/** Reports an event of the lease (renewed, store error, lost) with the duration of the store call. */
export type LeaseEventSink = (type: IdempotencyEvent['type'], durationMs?: number) => void;

/** An AbortController created only if the action reads its signal (most never do; it is not free per call). */
export class LazyAbortController {
  private controller: AbortController | undefined;
  private reason: unknown;
  aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/**
 * Watches the owner's lease while its action runs: renews it every `leaseMs / 3` (when `renew`), and aborts the
 * action at the owner's local lease deadline when no renewal succeeded by then, or at once when one is refused.
 * The deadline is local and conservative: it runs from before the claim (or renewal) was sent, so it ends no later
 * than the lease Redis granted, and the signal aborts before another owner can take over, even when the store
 * stays silent.
 */
export class LeaseRenewal {
  private timer: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private stopped = false;
  private leaseEndsAt = 0;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly request: RenewRequest,
    grantedAt: number,
    private readonly controller: LazyAbortController,
    private readonly emit: LeaseEventSink,
    private readonly renewing: boolean,
  ) {
    // From the grant, not from the call's start: a waiter may have waited long before it took the key over.
    this.extendTo(grantedAt + request.leaseMs);
    this.schedule();
  }

  /** True once the lease counts as lost (refused, or its local deadline passed without a renewal). */
  get lost(): boolean {
    return this.controller.aborted || Date.now() >= this.leaseEndsAt;
  }

  /** Stops renewing and waits for a renewal under way, so that complete/release always come after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
    await this.inFlight;
  }

  private extendTo(leaseEndsAt: number): void {
    // One ms early: Node's timers and the Redis clock both count whole milliseconds, and the signal must abort
    // before the earliest moment another owner can be granted the key.
    this.leaseEndsAt = leaseEndsAt - DEADLINE_SLACK_MS;
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.lose(), Math.max(0, leaseEndsAt - Date.now()));
    this.deadline.unref();
  }

  private schedule(): void {
    if (this.stopped || !this.renewing) return;
    this.timer = setTimeout(
      () => {
        this.inFlight = this.renew();
      },
      Math.max(1, Math.floor(this.request.leaseMs / 3)),
    );
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const started = Date.now();
    try {
      const renewed = await this.store.renew(this.request);
      if (this.stopped) return;
      if (!renewed) {
        this.lose();
        return;
      }
      this.extendTo(started + this.request.leaseMs);
      this.emit(IdempotencyEventType.LeaseRenewed, Date.now() - started);
    } catch {
      // The deadline timer decides: once our lease has run out we cannot tell whether another owner took over.
      this.emit(IdempotencyEventType.StoreError, Date.now() - started);
    }
    this.schedule();
  }

  private lose(): void {
    if (this.stopped || this.controller.aborted) return;
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
    this.emit(IdempotencyEventType.LeaseLost);
    this.controller.abort(new IdempotencyLeaseLostError(undefined, this.request));
  }
}
