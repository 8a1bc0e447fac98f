import type { ClaimRequest } from '../store.js';
import type { SentTo } from './pooled-runner.js';

/** Give-backs waiting at most; past it the oldest is dropped (its key then waits out its lease, as after a crash). */
export const MAX_PENDING_GIVE_BACKS = 1_000;
/** First pause after a failed give-back; it doubles per failure up to {@link MAX_RETRY_DELAY_MS}. */
const FIRST_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 2_000;

/** What a give-back does, provided by the store. */
export interface GiveBackSteps {
  /**
   * Ends the backend the claim was sent to, and resolves once it is gone (or was gone already): from then on the
   * claim has either committed or never will, even if its bytes are still on their way.
   */
  endBackend(backend: SentTo): Promise<void>;
  /** The owner-checked release of the claim's reservation, if it was granted. */
  release(request: ClaimRequest): Promise<unknown>;
}

interface GiveBack {
  readonly request: ClaimRequest;
  readonly backend: SentTo;
  /** After this the reservation's lease is over anyway: nothing left to give back. */
  readonly until: number;
  backendEnded: boolean;
}

const recordOf = (r: { operation: string; key: string }): string => `${r.operation}:${r.key}`;

/**
 * Claims whose caller was told "store unavailable" after the claim was sent: PostgreSQL may have granted it (the
 * reply was lost) or may still (the statement is running, or its bytes are in flight). Nobody will complete such a
 * reservation, so it is given back: first the backend it went to is ended (`pg_terminate_backend`, waiting until
 * it is gone), so no late grant can follow; then the owner-checked release. One queue, one give-back at a time,
 * bounded in length and retried with a growing pause until PostgreSQL answers or the lease is over; and a claim
 * of the same key from this process gives back first ({@link settle}), so its retry never waits out the lease.
 * Claims that never reached PostgreSQL (no connection in time) are never queued.
 */
export class GiveBacks {
  private readonly queue: GiveBack[] = [];
  private readonly byRecord = new Map<string, GiveBack>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private retryDelayMs = FIRST_RETRY_DELAY_MS;
  private closed = false;

  constructor(private readonly steps: GiveBackSteps) {}

  /** How many give-backs are waiting. */
  get size(): number {
    return this.queue.length;
  }

  /** Queues the give-back of a claim sent to `backend` whose answer never came. */
  add(request: ClaimRequest, backend: SentTo): void {
    if (this.closed) return;
    const entry: GiveBack = { request, backend, until: Date.now() + request.leaseMs, backendEnded: false };
    if (this.queue.length >= MAX_PENDING_GIVE_BACKS) this.forget(this.queue[0]!);
    this.queue.push(entry);
    this.byRecord.set(recordOf(request), entry);
    this.schedule(0);
  }

  /** Gives back this process' unanswered claim of the record at once, if there is one, before a new claim of it. */
  async settle(record: { operation: string; key: string }): Promise<void> {
    if (this.byRecord.size === 0) return;
    const entry = this.byRecord.get(recordOf(record));
    if (!entry) return;
    await this.attempt(entry).catch(() => undefined);
  }

  /** Stops retrying; what is still queued is left to its lease. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
    this.byRecord.clear();
  }

  private schedule(ms: number): void {
    if (this.closed || this.running || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, ms);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const entry = this.queue[0]!;
        try {
          await this.attempt(entry);
          this.retryDelayMs = FIRST_RETRY_DELAY_MS;
        } catch {
          // PostgreSQL is unreachable: wait before the next try, so a down store meets one retry, not a storm.
          this.running = false;
          this.schedule(this.retryDelayMs);
          this.retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, this.retryDelayMs * 2);
          return;
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** One try: end the backend (once), then release. Resolves when the give-back is done or no longer needed. */
  private async attempt(entry: GiveBack): Promise<void> {
    if (!this.queue.includes(entry)) return;
    if (Date.now() > entry.until) {
      this.forget(entry);
      return;
    }
    if (!entry.backendEnded) {
      await this.steps.endBackend(entry.backend);
      entry.backendEnded = true;
    }
    await this.steps.release(entry.request);
    this.forget(entry);
  }

  private forget(entry: GiveBack): void {
    const index = this.queue.indexOf(entry);
    if (index >= 0) this.queue.splice(index, 1);
    const record = recordOf(entry.request);
    if (this.byRecord.get(record) === entry) this.byRecord.delete(record);
  }
}
