import { InFlightMode, StoreUnavailablePolicy } from './options.js';

const DAY_MS = 24 * 60 * 60 * 1_000;

/**
 * Every limit the coordinator enforces, in one place: HTTP edges validate keys with them before calling anything,
 * and apps derive the ranges of their environment variables from them instead of copying numbers.
 *
 * Lengths count Unicode code points. Neither a key nor an operation may contain {@link IDEMPOTENCY_LIMITS.separator}
 * (it joins them in the record's name), a control character, or a lone surrogate (a string that is not well-formed
 * UTF-16 would be stored as U+FFFD and share a record with other strings).
 */
export const IDEMPOTENCY_LIMITS = {
  key: { minLength: 1, maxLength: 255 },
  operation: { minLength: 1, maxLength: 100 },
  /** Joins operation and key in the record's name, so neither may contain it. */
  separator: ':',
  /**
   * What neither a key nor an operation may contain: the separator, C0/C1 controls (incl. DEL) and lone
   * surrogates (in `u` mode a well-formed surrogate pair is one code point and does not match).
   */
  forbiddenCharacters: /[:\p{Cc}\p{Cs}]/u,
  /** Lifetime of a stored result. */
  ttlMs: { min: 1_000, max: 30 * DAY_MS },
  /** A reservation's lease (how long a crashed owner blocks its key). */
  leaseMs: { min: 10, max: 30 * DAY_MS },
  /** How long a waiter waits in `wait` mode. */
  waitTimeoutMs: { min: 0, max: 30 * DAY_MS },
  /** The longest an owner renews its lease, from its claim (`maxLeaseHoldMs`). */
  maxLeaseHoldMs: { min: 10, max: 30 * DAY_MS },
} as const;

/**
 * Defaults of {@link CoordinatorOptions} and of `makeIdempotent`'s `ttl`, in one place (the TSDoc `@default`s and
 * apps' env defaults quote these).
 * `waitTimeoutMs` defaults to the lease in force, so it has no number here.
 */
export const IDEMPOTENCY_DEFAULTS = {
  inFlight: InFlightMode.Wait,
  leaseMs: 30_000,
  renewLease: true,
  onStoreUnavailable: StoreUnavailablePolicy.FailClosed,
  /** Lifetime of a stored result where a form has a default (`makeIdempotent`'s `ttl`): 24 hours. */
  ttlMs: DAY_MS,
} as const;

/**
 * The limits under their former flat names.
 * @deprecated Use {@link IDEMPOTENCY_LIMITS}.
 */
export const IdempotencyLimits = {
  maxKeyLength: IDEMPOTENCY_LIMITS.key.maxLength,
  maxOperationLength: IDEMPOTENCY_LIMITS.operation.maxLength,
  minTtlMs: IDEMPOTENCY_LIMITS.ttlMs.min,
  maxTtlMs: IDEMPOTENCY_LIMITS.ttlMs.max,
  minLeaseMs: IDEMPOTENCY_LIMITS.leaseMs.min,
} as const;
