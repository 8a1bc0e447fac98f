import {
  IdempotencyStoreUnavailableError,
  IdempotencyUnencodableResultError,
  InvalidIdempotencyOptionsError,
  IdempotencyTransactionConflictError,
  isIdempotencyError,
  type IdempotencyError,
} from '../errors.js';
import type { RecordId } from '../store.js';
import { NOT_IN_TRANSACTION } from './schema.js';

/** SQLSTATEs after which the transaction must be rolled back and run again: nothing is wrong but the timing. */
const TRANSACTION_CONFLICTS: ReadonlySet<string> = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/**
 * SQLSTATEs of a value the database cannot hold as text: 22021 (a byte sequence invalid in the server encoding,
 * U+0000 in UTF8) and 22P05 (a character the server encoding has no equivalent for).
 */
const UNSTORABLE: ReadonlySet<string> = new Set(['22021', '22P05']);

/** True when `error` (or the store error wrapping it) is PostgreSQL refusing a value as text. */
export function isUnstorableValue(error: unknown): boolean {
  const state = sqlStateOf(error) ?? sqlStateOf((error as { cause?: unknown } | null)?.cause);
  return state !== undefined && UNSTORABLE.has(state);
}

/** The SQLSTATE of a driver error (node-postgres, postgres.js and Kysely all put it in `code`), if any. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A deadlock or serialization failure as a coded error, or `undefined` for anything else. */
export function transactionConflictOf(error: unknown, id: RecordId): IdempotencyError | undefined {
  if (isIdempotencyError(error)) return undefined;
  const state = sqlStateOf(error);
  if (state === undefined || !TRANSACTION_CONFLICTS.has(state)) return undefined;
  return new IdempotencyTransactionConflictError(state, {
    operation: id.operation,
    key: id.key,
    cause: error,
  });
}

/**
 * SQLSTATEs that abort the caller's transaction while the store's own statement runs on it, besides the
 * conflicts: 25P02 (the transaction was already aborted), 55P03 (the caller's lock_timeout), 57014 (its
 * statement_timeout or a cancel). Nothing of the transaction can commit any more: roll back and run it again.
 */
const ABORTED_TRANSACTION: ReadonlySet<string> = new Set(['25P02', '55P03', '57014']);

/**
 * A failed state change on the caller's transaction as a coded error: a value the database cannot hold is
 * `IDEMPOTENCY_UNENCODABLE_RESULT` (the transaction is aborted, so nothing of the action commits), a conflict or an
 * aborted transaction is `IDEMPOTENCY_TRANSACTION_CONFLICT` (roll back and retry), anything else (a lost
 * connection) is the store being unavailable.
 */
export function transactionStoreErrorOf(error: unknown, id: RecordId): IdempotencyError {
  if (isIdempotencyError(error)) return error;
  const context = { operation: id.operation, key: id.key, cause: error };
  const state = sqlStateOf(error);
  if (state !== undefined && UNSTORABLE.has(state)) {
    return new IdempotencyUnencodableResultError(
      'PostgreSQL cannot store the encoded result as text; the transaction is aborted: roll it back',
      context,
    );
  }
  if (state === NOT_IN_TRANSACTION) {
    return new InvalidIdempotencyOptionsError(
      'coordinateInTransaction needs an open transaction: BEGIN on one client (not a Pool or a Kysely instance) first',
      context,
    );
  }
  if (state !== undefined && ABORTED_TRANSACTION.has(state)) {
    return new IdempotencyTransactionConflictError(state, context);
  }
  return storeErrorOf(error, id);
}

/**
 * The one place a failed store call becomes a coded error: a transaction conflict stays one (roll back, retry);
 * anything else (connection refused or lost, lock_timeout, statement_timeout, a timed-out call) is the store
 * being unavailable.
 */
export function storeErrorOf(error: unknown, id: RecordId): IdempotencyError {
  if (isIdempotencyError(error)) return error;
  return (
    transactionConflictOf(error, id) ??
    new IdempotencyStoreUnavailableError(
      `Idempotency store unavailable: ${error instanceof Error ? error.message : String(error)}`,
      { operation: id.operation, key: id.key, cause: error },
    )
  );
}
