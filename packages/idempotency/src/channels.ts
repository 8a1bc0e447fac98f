import { channel } from 'node:diagnostics_channel';
import type { CoordinateOutcome, InFlightMode, StoreUnavailablePolicy } from './options.js';
import type { RecordState } from './store.js';
import { idempotencyKeyHash } from './tracing.js';

/**
 * The `node:diagnostics_channel` channels the coordinator publishes to, on every path (`coordinate`, waits,
 * `coordinateInTransaction`, `coordinateOptimisticallyWithOutcome`). A message is built only while a channel has
 * subscribers, so an app that listens to none pays nothing for them. Every message carries the fields of
 * {@link IdempotencyChannelMessageBase} (the key only as its hash, never the key itself) plus those listed for
 * its channel; {@link IdempotencyChannelMessage} types them by channel name.
 *
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * subscribe(IdempotencyChannel.Replayed, (message) => {
 *   const { operation, keyHash, fencingToken } = message as IdempotencyChannelMessage<'retry-safe:idempotency:replayed'>;
 * });
 * ```
 *
 * Subscribers run synchronously inside the call: keep them short, and do not throw (Node reports a subscriber's
 * error as an uncaught exception on the next tick; the call itself goes on).
 */
export const IdempotencyChannel = {
  /**
   * The call owns the key and is about to run the action. `fencingToken`: the one granted; `waited`: true when it
   * took the key over after another owner gave it up. In transactional mode, published when the claim is made in
   * the caller's transaction; the optimistic form claims and stores in one statement after its action ran, so it
   * publishes `claimed` then `stored` at that statement.
   */
  Claimed: 'retry-safe:idempotency:claimed',
  /**
   * A stored result was returned without running the action. `fencingToken`: of the owner that produced it;
   * `waited`: true when the call waited for that owner to finish. (A record of a value that could not be encoded
   * replays nothing: the call throws `IDEMPOTENCY_UNENCODABLE_RESULT` and nothing is published.)
   */
  Replayed: 'retry-safe:idempotency:replayed',
  /**
   * Another owner holds the key: published once per call, when its first claim finds it. `retryAfterMs`: until that
   * owner's lease ends if not renewed; `inFlight`: what the call does about it (`wait`, `raise`: it throws
   * `IDEMPOTENCY_IN_PROGRESS`, `run`: it runs the action unprotected). Transactional calls always raise.
   */
  InProgress: 'retry-safe:idempotency:in_progress',
  /**
   * The key was used before with another fingerprint (other parameters): the call throws `IDEMPOTENCY_KEY_REUSE`.
   * `storedState`: whether the record it met is `pending` or `completed`.
   */
  KeyReused: 'retry-safe:idempotency:key_reused',
  /**
   * The action's result was written to the record (for a transactional call: in the caller's transaction, which
   * the caller then commits). `outcome`: `executed` (the owner's result; `fencingToken` its token) or
   * `unprotected` (a run without a reservation stored because no record existed; `fencingToken` 0);
   * `unencodable`: true when the record says the action succeeded with a value the codec could not encode.
   */
  Stored: 'retry-safe:idempotency:stored',
  /**
   * The action threw and the owner gave its reservation back, so a retry runs the action again. `fencingToken`:
   * the owner's; `confirmed`: false when the store refused or failed the release (the key then stays reserved
   * until the lease ends).
   */
  Released: 'retry-safe:idempotency:released',
  /**
   * The owner lost its reservation while or after the action ran: the action's signal aborts, the call throws
   * `IDEMPOTENCY_LEASE_LOST`. `fencingToken`: the owner's; `reason`: one of {@link LeaseLostReason}.
   */
  LeaseLost: 'retry-safe:idempotency:lease_lost',
  /**
   * A store call failed or timed out. `phase`: which one ({@link StorePhase}). For a claim, `onStoreUnavailable`
   * says what follows (`fail-closed`: the call throws `IDEMPOTENCY_STORE_UNAVAILABLE`, `fail-open`: the action
   * runs unprotected); `fencingToken` is set for the owner's own calls (renew, complete, release).
   */
  StoreUnavailable: 'retry-safe:idempotency:store_unavailable',
} as const;

/** One of {@link IdempotencyChannel}'s values (a channel name). */
export type IdempotencyChannel = (typeof IdempotencyChannel)[keyof typeof IdempotencyChannel];

/** Why an owner lost its lease ({@link IdempotencyChannel.LeaseLost}). */
export const LeaseLostReason = {
  /** The store refused a renewal or the completion: another owner may hold the key now. */
  Refused: 'refused',
  /** No renewal succeeded before the owner's local lease deadline (store unreachable, or renewals off). */
  Expired: 'expired',
  /** Renewals stopped at `maxLeaseHoldMs` after the claim and the lease ran out: the action ran too long. */
  MaxHold: 'max_hold',
} as const;

/** One of {@link LeaseLostReason}'s values. */
export type LeaseLostReason = (typeof LeaseLostReason)[keyof typeof LeaseLostReason];

/** Which store call failed ({@link IdempotencyChannel.StoreUnavailable}). */
export const StorePhase = {
  Claim: 'claim',
  Renew: 'renew',
  Complete: 'complete',
  Release: 'release',
  /** Storing an unprotected run's result if no record exists. */
  StoreIfAbsent: 'store_if_absent',
  /** Subscribing to the owner's completion while waiting (the wait then polls). */
  Watch: 'watch',
} as const;

/** One of {@link StorePhase}'s values. */
export type StorePhase = (typeof StorePhase)[keyof typeof StorePhase];

/** What every message carries. */
export interface IdempotencyChannelMessageBase {
  readonly operation: string;
  /** `idempotencyKeyHash(key)`: the span's `idempotency.key_hash`; the raw key is never published. */
  readonly keyHash: string;
  /**
   * The fencing token of the owner the message is about, where one is known (claimed, replayed, stored, released,
   * lease lost; the owner's own store calls); absent for in progress, key reused and a failed claim.
   */
  readonly fencingToken?: number;
  /** Time since the call (`coordinate`, `coordinateInTransaction`...) started, in ms. */
  readonly durationMs: number;
  /** True for the transactional forms (the record in the caller's transaction). */
  readonly transactional: boolean;
}

/** The message of each channel, by channel name. */
export interface IdempotencyChannelMessages {
  [IdempotencyChannel.Claimed]: IdempotencyChannelMessageBase & {
    readonly fencingToken: number;
    readonly waited: boolean;
  };
  [IdempotencyChannel.Replayed]: IdempotencyChannelMessageBase & {
    readonly fencingToken: number;
    readonly waited: boolean;
  };
  [IdempotencyChannel.InProgress]: IdempotencyChannelMessageBase & {
    readonly retryAfterMs: number;
    readonly inFlight: InFlightMode;
  };
  [IdempotencyChannel.KeyReused]: IdempotencyChannelMessageBase & {
    readonly storedState: RecordState;
  };
  [IdempotencyChannel.Stored]: IdempotencyChannelMessageBase & {
    readonly fencingToken: number;
    readonly outcome: typeof CoordinateOutcome.Executed | typeof CoordinateOutcome.Unprotected;
    readonly unencodable: boolean;
  };
  [IdempotencyChannel.Released]: IdempotencyChannelMessageBase & {
    readonly fencingToken: number;
    readonly confirmed: boolean;
  };
  [IdempotencyChannel.LeaseLost]: IdempotencyChannelMessageBase & {
    readonly fencingToken: number;
    readonly reason: LeaseLostReason;
  };
  [IdempotencyChannel.StoreUnavailable]: IdempotencyChannelMessageBase & {
    readonly phase: StorePhase;
    readonly fencingToken?: number;
    readonly onStoreUnavailable?: StoreUnavailablePolicy;
  };
}

/** The message published on channel `C` (all of them when `C` is not narrowed). */
export type IdempotencyChannelMessage<C extends IdempotencyChannel = IdempotencyChannel> =
  IdempotencyChannelMessages[C];

/** What a message is about: a prepared call (its key is hashed, never published). */
export interface ChannelSubject {
  readonly operation: string;
  readonly key: string;
  readonly startedAt: number;
}

const claimed = channel(IdempotencyChannel.Claimed);
const replayed = channel(IdempotencyChannel.Replayed);
const inProgress = channel(IdempotencyChannel.InProgress);
const keyReused = channel(IdempotencyChannel.KeyReused);
const stored = channel(IdempotencyChannel.Stored);
const released = channel(IdempotencyChannel.Released);
const leaseLost = channel(IdempotencyChannel.LeaseLost);
const storeUnavailable = channel(IdempotencyChannel.StoreUnavailable);

// One function per channel, taking primitives: with no subscriber nothing is allocated and nothing hashed, which
// keeps the coordinator's hot path as it was (a check of `hasSubscribers` per publishing point).

function base(subject: ChannelSubject, transactional: boolean): IdempotencyChannelMessageBase {
  return {
    operation: subject.operation,
    keyHash: idempotencyKeyHash(subject.key),
    durationMs: Date.now() - subject.startedAt,
    transactional,
  };
}

/** Publishes {@link IdempotencyChannel.Claimed} if anyone listens. */
export function publishClaimed(
  subject: ChannelSubject,
  transactional: boolean,
  fencingToken: number,
  waited: boolean,
): void {
  if (!claimed.hasSubscribers) return;
  claimed.publish({ ...base(subject, transactional), fencingToken, waited });
}

/** Publishes {@link IdempotencyChannel.Replayed} if anyone listens. */
export function publishReplayed(
  subject: ChannelSubject,
  transactional: boolean,
  fencingToken: number,
  waited: boolean,
): void {
  if (!replayed.hasSubscribers) return;
  replayed.publish({ ...base(subject, transactional), fencingToken, waited });
}

/** Publishes {@link IdempotencyChannel.InProgress} if anyone listens. */
export function publishInProgress(
  subject: ChannelSubject,
  transactional: boolean,
  retryAfterMs: number,
  inFlight: InFlightMode,
): void {
  if (!inProgress.hasSubscribers) return;
  inProgress.publish({ ...base(subject, transactional), retryAfterMs, inFlight });
}

/** Publishes {@link IdempotencyChannel.KeyReused} if anyone listens. */
export function publishKeyReused(
  subject: ChannelSubject,
  transactional: boolean,
  storedState: RecordState,
): void {
  if (!keyReused.hasSubscribers) return;
  keyReused.publish({ ...base(subject, transactional), storedState });
}

/** Publishes {@link IdempotencyChannel.Stored} if anyone listens. */
export function publishStored(
  subject: ChannelSubject,
  transactional: boolean,
  fencingToken: number,
  outcome: typeof CoordinateOutcome.Executed | typeof CoordinateOutcome.Unprotected,
  unencodable: boolean,
): void {
  if (!stored.hasSubscribers) return;
  stored.publish({ ...base(subject, transactional), fencingToken, outcome, unencodable });
}

/** Publishes {@link IdempotencyChannel.Released} if anyone listens. */
export function publishReleased(
  subject: ChannelSubject,
  transactional: boolean,
  fencingToken: number,
  confirmed: boolean,
): void {
  if (!released.hasSubscribers) return;
  released.publish({ ...base(subject, transactional), fencingToken, confirmed });
}

/** Publishes {@link IdempotencyChannel.LeaseLost} if anyone listens. */
export function publishLeaseLost(
  subject: ChannelSubject,
  transactional: boolean,
  fencingToken: number,
  reason: LeaseLostReason,
): void {
  if (!leaseLost.hasSubscribers) return;
  leaseLost.publish({ ...base(subject, transactional), fencingToken, reason });
}

/** Publishes {@link IdempotencyChannel.StoreUnavailable} if anyone listens. */
export function publishStoreUnavailable(
  subject: ChannelSubject,
  transactional: boolean,
  phase: StorePhase,
  details?: { readonly fencingToken?: number; readonly onStoreUnavailable?: StoreUnavailablePolicy },
): void {
  if (!storeUnavailable.hasSubscribers) return;
  storeUnavailable.publish({ ...base(subject, transactional), phase, ...details });
}
