/**
 * The reference model of the property tests: one key's record, moved by the table's transitions (the rows of
 * transitions.json, decided by `transitionFor`), so the oracle is the same table the Promela model is generated
 * from. Time is in units; each store adapter turns units into milliseconds.
 */
import {
  loadTransitions,
  TOKEN_REPLIES,
  transitionFor,
  type CallKind,
  type Situation,
  type StoreKind,
  type Transition,
} from './transitions.js';

export interface ModelRecord {
  readonly state: 'pending' | 'completed' | 'completedWithoutResult' | 'released';
  readonly owner: string | null;
  readonly fingerprint: string;
  readonly fence: number;
  readonly payload: string | null;
  /** In units; null unless pending. */
  readonly leaseUntil: number | null;
  /** In units: from then on the record counts as absent. */
  readonly expiresAt: number;
}

/** The lifetimes a call asks for, in units (the coordinator's retention is max(ttl, lease)). */
export interface ModelTimes {
  readonly lease: number;
  readonly retain: number;
  readonly ttl: number;
}

/** One store call as the model sees it. */
export interface ModelCall {
  readonly call: CallKind;
  readonly owner: string;
  readonly fingerprint: string;
  /** complete and storeIfAbsent: the encoded result. */
  readonly payload?: string;
  /** claim on the Redis store: the owner of this store's timed-out claim. */
  readonly abandoned?: string;
}

/** A store's answer, in the table's words. */
export type Observed =
  | { readonly reply: 'acquired' | 'replayWithoutResult'; readonly fence: number }
  | { readonly reply: 'replay'; readonly fence: number; readonly payload: string }
  | { readonly reply: 'inProgress'; readonly retryAfterUnits: number }
  | { readonly reply: 'mismatchPending' | 'mismatchCompleted'; readonly storedFingerprint: string }
  | { readonly reply: 'true' | 'false' };

/** The store answered what the table does not allow: the property tests' failure. */
export class ModelDivergence extends Error {
  constructor(
    readonly row: Transition,
    readonly expected: string,
    readonly observed: Observed,
  ) {
    super(`${row.id}: expected ${expected}, the store answered ${JSON.stringify(observed)}`);
    this.name = 'ModelDivergence';
  }
}

export class ReferenceModel {
  now = 0;
  /** The record, live or (PostgreSQL) expired but not yet swept. */
  record: ModelRecord | undefined;
  /** The highest token granted for the key so far (0: none yet). */
  maxGranted = 0;

  /**
   * @param heldByTransaction - every call runs in one caller's transaction (PostgreSQL's `inTransaction`), which
   *   holds the rows it wrote until it ends: the caller's completion of its own pending record finds it live even
   *   when it expired, as nobody else could take it (the transaction is the lease: `<table>__tx_complete`)
   */
  constructor(
    readonly store: StoreKind,
    readonly times: ModelTimes,
    readonly transitions: readonly Transition[] = loadTransitions(),
    readonly heldByTransaction = false,
  ) {}

  /** The record, unless it expired (or, held by the transaction, it is the one `c` completes). */
  live(c?: ModelCall): ModelRecord | undefined {
    const r = this.record;
    if (r && r.expiresAt > this.now) return r;
    const completes = c?.call === 'complete' || c?.call === 'completeWithoutResult';
    return this.heldByTransaction && completes && r?.state === 'pending' && r.owner === c.owner
      ? r
      : undefined;
  }

  situation(c: ModelCall): Situation {
    const r = this.live(c);
    if (!r) return { record: 'absent' };
    const abandoned = c.abandoned !== undefined && r.state === 'pending' && r.owner === c.abandoned;
    const owner = r.owner === c.owner ? 'caller' : abandoned ? 'abandoned' : 'other';
    const fingerprint = r.fingerprint === c.fingerprint ? 'same' : 'other';
    if (r.state !== 'pending') return { record: r.state, owner, fingerprint };
    return { record: r.state, owner, lease: (r.leaseUntil ?? 0) > this.now ? 'live' : 'over', fingerprint };
  }

  /** The row that decides `c` now. */
  rowFor(c: ModelCall): Transition {
    return transitionFor(this.transitions, c.call, this.situation(c), this.store);
  }

  /**
   * Checks what the store answered to `c` against the deciding row and moves the record as the row says. A
   * token the table leaves open ("fresh": above every earlier one) is taken from the answer.
   * @throws ModelDivergence when the answer is not the row's.
   */
  step(c: ModelCall, observed: Observed): Transition {
    const row = this.rowFor(c);
    const fail = (expected: string): never => {
      throw new ModelDivergence(row, expected, observed);
    };
    if (observed.reply !== row.reply) fail(row.reply);
    const fence = TOKEN_REPLIES.includes(row.reply)
      ? this.checkFence(row, observed, fail)
      : this.fenceAfter(row, c);
    this.checkDetails(row, observed, fail);
    this.apply(row, c, fence);
    return row;
  }

  /** The answer this row must give, with its token where the table fixes one (for tests that drive the model). */
  expected(c: ModelCall): Observed {
    const row = this.rowFor(c);
    const r = this.live();
    const fence = row.fence === 'fresh' ? this.maxGranted + 1 : this.fenceAfter(row, c);
    switch (row.reply) {
      case 'acquired':
      case 'replayWithoutResult':
        return { reply: row.reply, fence };
      case 'replay':
        return { reply: row.reply, fence, payload: r?.payload ?? '' };
      case 'inProgress':
        return { reply: row.reply, retryAfterUnits: (r?.leaseUntil ?? 0) - this.now };
      case 'mismatchPending':
      case 'mismatchCompleted':
        return { reply: row.reply, storedFingerprint: r?.fingerprint ?? '' };
      default:
        return { reply: row.reply };
    }
  }

  advance(units: number): void {
    this.now += units;
    // The Redis store forgets an expired record at once; PostgreSQL keeps its row (and token) until the sweep.
    if (this.store === 'redis' && !this.live()) this.record = undefined;
  }

  /** PostgreSQL's sweep: an expired row is deleted, its token raised into the floor (maxGranted keeps it). */
  sweep(): void {
    if (!this.live()) this.record = undefined;
  }

  /** The token a row with a fixed rule gives (next: the stored + 1; unowned: 0, or an expired row's). */
  private fenceAfter(row: Transition, c?: ModelCall): number {
    const r = this.live(c);
    switch (row.fence ?? 'same') {
      case 'same':
        return r?.fence ?? 0;
      case 'next':
        return (r?.fence ?? 0) + 1;
      case 'unowned':
        return this.store === 'postgres' ? (this.record?.fence ?? 0) : 0;
      case 'restart':
        return 1;
      case 'fresh':
        return NaN;
    }
  }

  private checkFence(row: Transition, observed: Observed, fail: (expected: string) => never): number {
    const fence = 'fence' in observed ? observed.fence : NaN;
    if (!Number.isSafeInteger(fence)) fail('a token that is a safe integer');
    if (row.fence !== 'fresh' && fence !== this.fenceAfter(row)) fail(`token ${this.fenceAfter(row)}`);
    // Fencing: a grant's token is above every token granted before it, across expiry.
    if (isGrant(row) && fence <= this.maxGranted)
      fail(`a token above every earlier one (${this.maxGranted})`);
    return fence;
  }

  private checkDetails(row: Transition, observed: Observed, fail: (expected: string) => never): void {
    const r = this.live();
    if (observed.reply === 'replay' && observed.payload !== r?.payload) fail(`payload ${r?.payload}`);
    if ('storedFingerprint' in observed && observed.storedFingerprint !== r?.fingerprint) {
      fail(`stored fingerprint ${r?.fingerprint}`);
    }
    if (observed.reply === 'inProgress') {
      const left = (r?.leaseUntil ?? 0) - this.now;
      // The store's clock ran on by the test's own time (well under a unit) since the lease was granted.
      if (!(observed.retryAfterUnits > left - 1 && observed.retryAfterUnits <= left)) {
        fail(`retryAfter within the last unit before ${left} units`);
      }
    }
  }

  private apply(row: Transition, c: ModelCall, fence: number): void {
    if (isGrant(row)) this.maxGranted = fence;
    if (row.then === 'unchanged') return;
    const before = this.live(c) ?? this.record;
    const then = row.then;
    const now = this.now;
    const leaseUntil =
      then.lease === 'granted'
        ? now + this.times.lease
        : then.lease === 'none'
          ? null
          : (before?.leaseUntil ?? null);
    const expiresAt = {
      retain: now + this.times.retain,
      ttl: now + this.times.ttl,
      atLeastLease: Math.max(before?.expiresAt ?? 0, now + this.times.lease),
      keep: before?.expiresAt ?? now,
    }[then.expiry ?? 'keep'];
    this.record = {
      state: then.record ?? before?.state ?? 'pending',
      owner: then.owner === 'caller' ? c.owner : then.owner === 'none' ? null : (before?.owner ?? null),
      fingerprint: then.fingerprint === 'caller' ? c.fingerprint : (before?.fingerprint ?? ''),
      fence,
      payload:
        then.payload === 'caller'
          ? (c.payload ?? null)
          : then.payload === 'none'
            ? null
            : (before?.payload ?? null),
      leaseUntil,
      expiresAt,
    };
  }
}

/** A row that grants the key anew (a new token), as opposed to answering a resend with the same one. */
export function isGrant(row: Transition): boolean {
  return row.reply === 'acquired' && row.fence !== 'same';
}

/** The caller of {@link recordIn}'s situations: its owner token and fingerprint. */
export const CALLER = { owner: 'owner-me', fingerprint: 'fp-a' } as const;
/** The owner of a record someone else holds, and of this store's timed-out claim. */
export const OTHER_OWNER = 'owner-them';
export const ABANDONED_OWNER = 'owner-lost';
/** The token every {@link recordIn} record holds. */
export const STORED_FENCE = 7;

/**
 * A record in situation `s` at time 0 (undefined for an absent one), and the call's abandoned owner, for tests
 * that set a store up in each situation of the table.
 */
export function recordIn(
  s: Situation,
  times: ModelTimes,
): { record: ModelRecord | undefined; abandoned: string | undefined } {
  if (s.record === 'absent') return { record: undefined, abandoned: undefined };
  const owner = { caller: CALLER.owner, abandoned: ABANDONED_OWNER, other: OTHER_OWNER }[s.owner ?? 'other'];
  const pending = s.record === 'pending';
  return {
    record: {
      state: s.record,
      owner,
      fingerprint: s.fingerprint === 'other' ? 'fp-b' : CALLER.fingerprint,
      fence: STORED_FENCE,
      payload: s.record === 'completed' ? `{"stored":"${owner}"}` : null,
      leaseUntil: pending ? (s.lease === 'over' ? -1 : times.lease) : null,
      expiresAt: s.record === 'completed' || s.record === 'completedWithoutResult' ? times.ttl : times.retain,
    },
    abandoned: s.owner === 'abandoned' ? ABANDONED_OWNER : undefined,
  };
}

/** The call of `kind` by {@link CALLER} in a situation made by {@link recordIn}. */
export function callerCall(kind: CallKind, abandoned: string | undefined): ModelCall {
  const payload =
    kind === 'complete' ? `{"stored":"${CALLER.owner}"}` : kind === 'storeIfAbsent' ? '{"u":1}' : undefined;
  return {
    call: kind,
    ...CALLER,
    ...(payload === undefined ? {} : { payload }),
    ...(abandoned === undefined ? {} : { abandoned }),
  };
}
