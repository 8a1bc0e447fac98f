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
 *
 * One timer at a time, for whichever comes first (the next renewal or the deadline): most actions end before
 * either, and a second timer per call cost Node CPU on every first execution for nothing. A renewal that fires
 * arms the deadline while it is under way.
 */
export class LeaseRenewal {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  /** The lease's end as granted (the deadline timer fires then); {@link lost} counts from 1 ms before. */
  private deadlineAt = 0;
  /** When the next renewal is due; undefined while one is under way, or when not renewing. */
  private renewAt: number | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly request: RenewRequest,
    grantedAt: number,
    private readonly controller: LazyAbortController,
    private readonly emit: LeaseEventSink,
    private readonly renewing: boolean,
  ) {
    // From the grant, not from the call's start: a waiter may have waited long before it took the key over.
    this.deadlineAt = grantedAt + request.leaseMs;
    this.scheduleRenewal();
    this.arm();
  }

  /** True once the lease counts as lost (refused, or its local deadline passed without a renewal). */
  get lost(): boolean {
    // One ms early: Node's timers and the Redis clock both count whole milliseconds, and the signal must abort
    // before the earliest moment another owner can be granted the key.
    return this.controller.aborted || Date.now() >= this.deadlineAt - DEADLINE_SLACK_MS;
  }

  /**
   * Stops renewing. Returns the renewal under way, if any, so that complete/release always come after it (no
   * promise to wait for in the usual case: an action shorter than a third of its lease).
   */
  stop(): Promise<void> | undefined {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.inFlight;
  }

  private scheduleRenewal(): void {
    this.renewAt =
      this.renewing && !this.stopped
        ? Date.now() + Math.max(1, Math.floor(this.request.leaseMs / 3))
        : undefined;
  }

  /** (Re)arms the one timer for the next renewal or the deadline, whichever is first. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const now = Date.now();
    const untilDeadline = Math.max(0, this.deadlineAt - now);
    if (this.renewAt !== undefined && this.renewAt - now < untilDeadline) {
      this.timer = setTimeout(() => this.startRenewal(), this.renewAt - now);
    } else {
      this.timer = setTimeout(() => this.lose(), untilDeadline);
    }
    this.timer.unref();
  }

  private startRenewal(): void {
    this.renewAt = undefined;
    // The deadline still holds while the renewal is under way.
    this.arm();
    this.inFlight = this.renew();
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
      this.deadlineAt = started + this.request.leaseMs;
      this.emit(IdempotencyEventType.LeaseRenewed, Date.now() - started);
    } catch {
      // The deadline timer decides: once our lease has run out we cannot tell whether another owner took over.
      this.emit(IdempotencyEventType.StoreError, Date.now() - started);
    }
    this.scheduleRenewal();
    this.arm();
  }

  private lose(): void {
    if (this.stopped || this.controller.aborted) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.emit(IdempotencyEventType.LeaseLost);
    this.controller.abort(new IdempotencyLeaseLostError(undefined, this.request));
  }
}
