import {
  ClaimStatus,
  RecordState,
  type ClaimRequest,
  type ClaimResult,
  type CompleteRequest,
  type IdempotencyStore,
  type RecordId,
  type ReleaseRequest,
  type RenewRequest,
  type StoreIfAbsentRequest,
} from '../store.js';
import { assertIntegerIn } from '../validation.js';

/** Options of the {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /**
   * The clock records expire by, in ms since the epoch (tests pass one they move by hand).
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * How often expired records are removed, in ms (an integer from 0 to one day). The timer is unref'd (it never
   * keeps the process alive) and `close()` stops it; 0 starts none (call {@link MemoryIdempotencyStore.sweep}
   * yourself). Between sweeps an expired record is still dropped when its key is used again.
   * @default 60_000
   */
  readonly sweepIntervalMs?: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
const MAX_SWEEP_INTERVAL_MS = 24 * 60 * 60 * 1_000;

/** One record, as the Redis script keeps it: pending (a lease), completed (a payload, or null), or released. */
interface MemoryRecord {
  state: 'pending' | 'completed' | 'released';
  fencingToken: number;
  owner: string;
  fingerprint: string;
  leaseUntil: number;
  payload: string | null;
  expiresAt: number;
}

/**
 * An {@link IdempotencyStore} in this process's memory, for unit tests without Redis: the Redis store's contract
 * (claim-or-replay, owner-checked writes, fencing tokens, exact TTLs, wake-ups of waiters), checked by the same
 * behaviour suite. Not for production: records are lost on restart and not shared between processes.
 *
 * Expired records are swept every `sweepIntervalMs` (like Redis expiring keys), so memory stays bounded by the
 * records alive within one interval, not by every key ever used.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, MemoryRecord>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;
  private lastToken = 0;

  /**
   * @param options - the options, or (as in earlier versions) just the clock.
   * @throws InvalidIdempotencyOptionsError for a `sweepIntervalMs` that is not an integer from 0 to one day.
   */
  constructor(options: MemoryIdempotencyStoreOptions | (() => number) = {}) {
    const { now = Date.now, sweepIntervalMs = DEFAULT_SWEEP_INTERVAL_MS } =
      typeof options === 'function' ? { now: options } : options;
    assertIntegerIn('sweepIntervalMs', sweepIntervalMs, 0, MAX_SWEEP_INTERVAL_MS);
    this.now = now;
    if (sweepIntervalMs > 0) {
      this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
      // A store left open (tests rarely close it) must not keep the process alive.
      this.sweeper.unref();
    }
  }

  /** How many records the store holds, expired ones not swept yet included. */
  get size(): number {
    return this.records.size;
  }

  /**
   * Removes every expired record now (the timer does this every `sweepIntervalMs`).
   * @returns how many were removed.
   */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    // Deleting the entry being visited is safe in a Map's iteration.
    for (const [id, record] of this.records) {
      if (record.expiresAt <= now) {
        this.records.delete(id);
        removed++;
      }
    }
    return removed;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const id = idOf(request);
    const record = this.live(id);
    const now = this.now();
    if (record !== undefined) {
      if (record.state === 'pending' && record.owner === request.owner) {
        return { status: ClaimStatus.Acquired, fencingToken: record.fencingToken };
      }
      if (record.state === 'completed') {
        if (record.fingerprint !== request.fingerprint) {
          return {
            status: ClaimStatus.Mismatch,
            storedFingerprint: record.fingerprint,
            state: RecordState.Completed,
          };
        }
        return { status: ClaimStatus.Completed, payload: record.payload, fencingToken: record.fencingToken };
      }
      if (record.state === 'pending' && record.leaseUntil > now) {
        if (record.fingerprint !== request.fingerprint) {
          return {
            status: ClaimStatus.Mismatch,
            storedFingerprint: record.fingerprint,
            state: RecordState.Pending,
          };
        }
        return { status: ClaimStatus.InProgress, retryAfterMs: record.leaseUntil - now };
      }
    }
    // A new record's token comes from a counter that never goes back, so it exceeds every earlier one.
    const fencingToken = Math.max(record === undefined ? 0 : record.fencingToken, this.lastToken) + 1;
    this.lastToken = fencingToken;
    this.records.set(id, {
      state: 'pending',
      fencingToken,
      owner: request.owner,
      fingerprint: request.fingerprint,
      leaseUntil: now + request.leaseMs,
      payload: null,
      expiresAt: now + request.retainMs,
    });
    return { status: ClaimStatus.Acquired, fencingToken };
  }

  async complete(request: CompleteRequest): Promise<boolean> {
    const id = idOf(request);
    const record = this.live(id);
    if (record === undefined || record.owner !== request.owner) return false;
    if (record.state === 'completed') return true;
    if (record.state !== 'pending') return false;
    Object.assign(record, {
      state: 'completed',
      payload: request.payload,
      leaseUntil: 0,
      expiresAt: this.now() + request.ttlMs,
    });
    this.notify(id);
    return true;
  }

  async renew(request: RenewRequest): Promise<boolean> {
    const record = this.live(idOf(request));
    if (record === undefined || record.owner !== request.owner || record.state !== 'pending') return false;
    const now = this.now();
    record.leaseUntil = now + request.leaseMs;
    record.expiresAt = Math.max(record.expiresAt, now + request.leaseMs);
    return true;
  }

  async release(request: ReleaseRequest): Promise<boolean> {
    const id = idOf(request);
    const record = this.live(id);
    if (record === undefined || record.owner !== request.owner) return false;
    if (record.state === 'released') return true;
    if (record.state !== 'pending') return false;
    // Kept until it would have expired: the next owner's fencing token continues from this one.
    Object.assign(record, { state: 'released', leaseUntil: 0, fingerprint: '', payload: null });
    this.notify(id);
    return true;
  }

  async storeIfAbsent(request: StoreIfAbsentRequest): Promise<boolean> {
    const id = idOf(request);
    if (this.live(id) !== undefined) return false;
    this.records.set(id, {
      state: 'completed',
      fencingToken: 0,
      owner: '',
      fingerprint: request.fingerprint,
      leaseUntil: 0,
      payload: request.payload,
      expiresAt: this.now() + request.ttlMs,
    });
    this.notify(id);
    return true;
  }

  async watch(id: RecordId, listener: () => void): Promise<() => Promise<void>> {
    const key = idOf(id);
    let set = this.listeners.get(key);
    if (set === undefined) this.listeners.set(key, (set = new Set()));
    // Wrapped, so one listener watched twice is two subscriptions.
    const wrapped = (): void => listener();
    set.add(wrapped);
    return async () => {
      set.delete(wrapped);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  /** Forgets every record (between tests). */
  clear(): void {
    this.records.clear();
  }

  /**
   * Stops the sweep timer (the records stay, and the store still works: expired ones are then dropped only when
   * their key is used again, or by {@link sweep}). Fits `IdempotencyModule`'s `closeStoreOnShutdown`.
   */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** `<operation>:<key>` of every live record, and its remaining lifetime in ms (for tests). */
  entries(): { id: string; remainingMs: number }[] {
    const now = this.now();
    return [...this.records.keys()]
      .filter((id) => this.live(id) !== undefined)
      .map((id) => ({ id, remainingMs: this.records.get(id)!.expiresAt - now }));
  }

  /** Removes a record, as an expiry or an operator would (for tests). */
  delete(id: RecordId): void {
    this.records.delete(idOf(id));
  }

  private live(id: string): MemoryRecord | undefined {
    const record = this.records.get(id);
    if (record === undefined) return undefined;
    if (record.expiresAt > this.now()) return record;
    this.records.delete(id);
    return undefined;
  }

  private notify(id: string): void {
    for (const listener of [...(this.listeners.get(id) ?? [])]) listener();
  }
}

function idOf(id: RecordId): string {
  return `${id.operation}:${id.key}`;
}
