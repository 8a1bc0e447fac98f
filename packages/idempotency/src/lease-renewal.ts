import { LeaseLostReason } from './channels.js';
import { IdempotencyLeaseLostError } from './errors.js';
import { IdempotencyEventType, type IdempotencyEvent } from './options.js';
import type { IdempotencyStore, RenewRequest } from './store.js';

const DEADLINE_SLACK_MS = 1;

/**
 * Reports an event of the lease (renewed, store error, lost) with the duration of the store call, and for
 * `lease_lost` why it was lost.
 */
export type LeaseEventSink = (
  type: IdempotencyEvent['type'],
  durationMs?: number,
  reason?: LeaseLostReason,
) => void;

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
 * With `maxHoldMs`, no renewal is sent that would extend the lease past `maxHoldMs` after the grant: a hung action
 * then loses its lease (and its signal aborts) between `maxHoldMs - leaseMs / 3` and `maxHoldMs` after the claim,
 * instead of holding the key for as long as it hangs.
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
  /** No lease may be granted past this (`maxHoldMs` after the grant); infinite without a cap. */
  private readonly holdUntil: number;
  /** True once a renewal was withheld because of {@link holdUntil}. */
  private capped = false;
  private reason: LeaseLostReason | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly request: RenewRequest,
    grantedAt: number,
    private readonly controller: LazyAbortController,
    private readonly emit: LeaseEventSink,
    private readonly renewing: boolean,
    maxHoldMs?: number,
  ) {
    // From the grant, not from the call's start: a waiter may have waited long before it took the key over.
    this.deadlineAt = grantedAt + request.leaseMs;
    this.holdUntil = maxHoldMs === undefined ? Infinity : grantedAt + maxHoldMs;
    this.scheduleRenewal();
    this.arm();
  }

  /** Why the lease counts as lost ({@link lost}): refused by the store, or run out (past the cap or not). */
  get lostReason(): LeaseLostReason {
    return this.reason ?? (this.capped ? LeaseLostReason.MaxHold : LeaseLostReason.Expired);
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
    if (!this.renewing || this.stopped) {
      this.renewAt = undefined;
      return;
    }
    const renewAt = Date.now() + Math.max(1, Math.floor(this.request.leaseMs / 3));
    // A renewal then would grant a lease past the cap: none is sent, and the deadline timer ends the lease.
    if (renewAt + this.request.leaseMs > this.holdUntil) {
      this.renewAt = undefined;
      this.capped = true;
      return;
    }
    this.renewAt = renewAt;
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
    // A timer that fired late must not stretch the lease past the cap either.
    if (Date.now() + this.request.leaseMs > this.holdUntil) {
      this.capped = true;
      this.arm();
      return;
    }
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
        this.lose(LeaseLostReason.Refused);
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

  /** Ends the lease: refused by the store, or (the deadline timer) run out. */
  private lose(reason: LeaseLostReason = this.lostReason): void {
    if (this.stopped || this.controller.aborted) return;
    this.stopped = true;
    this.reason = reason;
    clearTimeout(this.timer);
    this.emit(IdempotencyEventType.LeaseLost, undefined, reason);
    this.controller.abort(new IdempotencyLeaseLostError(undefined, this.request));
  }
}
