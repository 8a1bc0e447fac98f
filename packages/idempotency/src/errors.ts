/** Stable codes of every error this package throws; check errors by `code` across package boundaries. */
export const IdempotencyErrorCode = {
  InvalidKey: 'IDEMPOTENCY_INVALID_KEY',
  KeyReuse: 'IDEMPOTENCY_KEY_REUSE',
  InProgress: 'IDEMPOTENCY_IN_PROGRESS',
  StoreUnavailable: 'IDEMPOTENCY_STORE_UNAVAILABLE',
  LeaseLost: 'IDEMPOTENCY_LEASE_LOST',
  CorruptRecord: 'IDEMPOTENCY_CORRUPT_RECORD',
  InvalidOptions: 'IDEMPOTENCY_INVALID_OPTIONS',
  UnencodableResult: 'IDEMPOTENCY_UNENCODABLE_RESULT',
  TransactionConflict: 'IDEMPOTENCY_TRANSACTION_CONFLICT',
} as const;

/** One of {@link IdempotencyErrorCode}'s values. */
export type IdempotencyErrorCode = (typeof IdempotencyErrorCode)[keyof typeof IdempotencyErrorCode];

/** Where an error happened: the operation and key it concerns (either may be absent for option errors). */
export interface IdempotencyErrorContext {
  operation?: string | undefined;
  key?: string | undefined;
  cause?: unknown;
}

/** Base of every error thrown by the coordinator and its stores. */
export abstract class IdempotencyError extends Error {
  abstract readonly code: IdempotencyErrorCode;
  readonly operation: string | undefined;
  readonly key: string | undefined;

  // Public: an error that says no more than its message and context needs no constructor of its own.
  constructor(message: string, context: IdempotencyErrorContext) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.operation = context.operation;
    this.key = context.key;
  }
}

/**
 * The key or operation is not acceptable (empty or blank, contains `:` or control characters, too long).
 * Thrown before anything touches the store: the action never runs.
 */
export class InvalidIdempotencyKeyError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.InvalidKey;
  constructor(
    /** What is wrong, e.g. `key is longer than 255 characters`. */
    readonly reason: string,
    context: IdempotencyErrorContext,
  ) {
    super(`Invalid idempotency key: ${reason}`, context);
  }
}

/**
 * The request carries no `Idempotency-Key` (a route that requires one). Same `code` as an invalid key, so a
 * handler of key errors sees both; {@link problemForIdempotencyError} answers `idempotency_key_missing`.
 */
export class IdempotencyKeyMissingError extends InvalidIdempotencyKeyError {
  readonly missing = true;
}

/** The same operation and key were used with another fingerprint (other parameters); nothing ran. */
export class IdempotencyKeyReuseError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.KeyReuse;
  constructor(
    readonly storedFingerprint: string,
    readonly requestFingerprint: string,
    context: IdempotencyErrorContext,
  ) {
    super('Idempotency key reused with different request parameters', context);
  }
}

/** Another owner holds the key (raise mode), or waiting for it timed out (wait mode). */
export class IdempotencyInProgressError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.InProgress;
  constructor(
    /** Time until the current owner's lease ends if it is not renewed; a crash blocks the key at most this long. */
    readonly retryAfterMs: number,
    context: IdempotencyErrorContext,
  ) {
    super('A request with this idempotency key is still in progress', context);
  }
}

/** The store failed or timed out before the action (fail-closed): the action never ran. */
export class IdempotencyStoreUnavailableError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.StoreUnavailable;
}

/**
 * The owner lost its reservation while the action ran: a renewal was refused, or no renewal succeeded before the
 * owner's local lease deadline (another owner may have taken over). The action's signal was aborted. Its result
 * was never written over a newer owner's record; it was stored only if the record was still this owner's.
 */
export class IdempotencyLeaseLostError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.LeaseLost;
  constructor(
    /** What the action returned (or `undefined` if it did not finish), so the caller can reconcile it. */
    readonly result: unknown,
    context: IdempotencyErrorContext,
  ) {
    super('The idempotency lease was lost while the action ran', context);
  }
}

/** A stored record cannot be decoded. Never treated as a miss: the action does not run again. */
export class IdempotencyCorruptRecordError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.CorruptRecord;
}

/**
 * The action succeeded but the codec could not encode its value. The effect happened, so the record says so: the
 * action never runs again for this key within its TTL, and every repeat gets this error too.
 */
export class IdempotencyUnencodableResultError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.UnencodableResult;
}

/** A programmer error in options or request settings (TTL out of range, bad lease, bad key prefix). */
export class InvalidIdempotencyOptionsError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.InvalidOptions;
  constructor(message: string, context: IdempotencyErrorContext = {}) {
    super(message, context);
  }
}

/**
 * The caller's database transaction failed with a deadlock or a serialization failure while the record was claimed,
 * the action ran or the record was completed (transactional mode), or a store statement on it met an aborted
 * transaction, the caller's own `lock_timeout` or `statement_timeout` (25P02, 55P03, 57014). The transaction is
 * aborted: roll it back and run it again; nothing of it was committed.
 */
export class IdempotencyTransactionConflictError extends IdempotencyError {
  readonly code = IdempotencyErrorCode.TransactionConflict;
  constructor(
    /** The database's error code (SQLSTATE), e.g. `40001`, `40P01`, `25P02`, `55P03` or `57014`. */
    readonly sqlState: string,
    context: IdempotencyErrorContext,
  ) {
    super(`The transaction must be retried (SQLSTATE ${sqlState})`, context);
  }
}

const codes = new Set<string>(Object.values(IdempotencyErrorCode));

/**
 * True for errors of this package, recognised by their `code` so that it also works across duplicated copies of
 * the package (where `instanceof` fails).
 */
export function isIdempotencyError(error: unknown): error is IdempotencyError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    codes.has((error as { code: string }).code)
  );
}
