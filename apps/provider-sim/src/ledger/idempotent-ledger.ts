import { IdempotencyKeyReusedError } from '../common/provider-errors.js';

/** One effect the simulated provider performed (a charge, an email). */
export interface LedgerEntry<P> {
  readonly id: string;
  readonly idempotencyKey: string;
  readonly params: P;
  /** ISO 8601. */
  readonly createdAt: string;
}

/** Options of an {@link IdempotentLedger}. */
export interface IdempotentLedgerOptions<P> {
  /** Prefix of the ids, e.g. `ch_` gives `ch_1`, `ch_2`... */
  readonly idPrefix: string;
  /**
   * Deduplicate by key; `false` records a new entry on every call (a provider without idempotency). A function is
   * asked on every call (the setting can change on a running simulator, see `PUT /__config`).
   */
  readonly dedup: boolean | (() => boolean);
  /** What must match for a key to be reused, e.g. `{amount, currency}`; compared as JSON. */
  readonly fingerprint: (params: P) => unknown;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** The result of {@link IdempotentLedger.record}. */
export interface RecordResult<P> {
  readonly entry: LedgerEntry<P>;
  /** True when the key was seen before and the original entry is returned. */
  readonly replayed: boolean;
}

/**
 * In-memory ledger of a simulated external system, deduplicating by idempotency key like Stripe does.
 *
 * `record` is synchronous on purpose: JavaScript runs it to completion, so the check for an existing key and the
 * insert happen in one step and two concurrent duplicates can never both create an entry. Keep every `await`
 * (latency, I/O) before the call, never between the check and the set.
 */
export class IdempotentLedger<P> {
  private readonly byKey = new Map<string, { entry: LedgerEntry<P>; fingerprint: string }>();
  private readonly entries: LedgerEntry<P>[] = [];
  private callCount = 0;
  // Never reset: an id handed out before a reset must not name another entry after it.
  private sequence = 0;
  private readonly now: () => Date;

  constructor(private readonly options: IdempotentLedgerOptions<P>) {
    this.now = options.now ?? (() => new Date());
  }

  /** Counts a call that reached the handler, whatever its outcome. */
  countCall(): void {
    this.callCount += 1;
  }

  /**
   * Returns the entry already recorded under `idempotencyKey` (dedup on), or records a new one.
   * @throws {@link IdempotencyKeyReusedError} when the key was recorded with another fingerprint.
   */
  record(idempotencyKey: string, params: P): RecordResult<P> {
    const fingerprint = JSON.stringify(this.options.fingerprint(params));
    const dedup = typeof this.options.dedup === 'function' ? this.options.dedup() : this.options.dedup;
    if (dedup) {
      const existing = this.byKey.get(idempotencyKey);
      if (existing) {
        if (existing.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(idempotencyKey);
        return { entry: existing.entry, replayed: true };
      }
    }
    this.sequence += 1;
    const entry: LedgerEntry<P> = {
      id: `${this.options.idPrefix}${this.sequence}`,
      idempotencyKey,
      params,
      createdAt: this.now().toISOString(),
    };
    this.entries.push(entry);
    if (!this.byKey.has(idempotencyKey)) this.byKey.set(idempotencyKey, { entry, fingerprint });
    return { entry, replayed: false };
  }

  /** Calls received and entries recorded so far, oldest first. */
  snapshot(): { calls: number; entries: readonly LedgerEntry<P>[] } {
    return { calls: this.callCount, entries: [...this.entries] };
  }

  /** Forgets every entry and call (ids keep counting up). */
  reset(): void {
    this.byKey.clear();
    this.entries.length = 0;
    this.callCount = 0;
  }
}
