import { IdempotencyLeaseLostError } from './errors.js';
import { IdempotencyEventType, type IdempotencyEvent } from './options.js';
import type { IdempotencyStore, RenewRequest } from './store.js';

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

/** Renews the owner's lease every `leaseMs / 3` until stopped; aborts the action when the lease is lost. */
export class LeaseRenewal {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private stopped = false;
  private leaseEndsAt: number;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly request: RenewRequest,
    grantedAt: number,
    private readonly controller: LazyAbortController,
    private readonly emit: LeaseEventSink,
  ) {
    // From the grant, not from the call's start: a waiter may have waited long before it took the key over.
    this.leaseEndsAt = grantedAt + request.leaseMs;
    this.schedule();
  }

  /** Stops renewing and waits for a renewal under way, so that complete/release always come after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped) return;
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
        this.lost();
        return;
      }
      this.leaseEndsAt = started + this.request.leaseMs;
      this.emit(IdempotencyEventType.LeaseRenewed, Date.now() - started);
    } catch {
      this.emit(IdempotencyEventType.StoreError, Date.now() - started);
      // We cannot tell whether another owner took over once our lease has run out: assume the worst.
      if (!this.stopped && Date.now() >= this.leaseEndsAt) {
        this.lost();
        return;
      }
    }
    this.schedule();
  }

  private lost(): void {
    this.stopped = true;
    this.emit(IdempotencyEventType.LeaseLost);
    this.controller.abort(new IdempotencyLeaseLostError(undefined, this.request));
  }
}
