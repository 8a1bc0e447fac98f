import {
  IdempotencyStoreUnavailableError,
  IdempotencyTransactionConflictError,
  isIdempotencyError,
  type IdempotencyError,
} from '../errors.js';
import type { RecordId } from '../store.js';

/** SQLSTATEs after which the transaction must be rolled back and run again: nothing is wrong but the timing. */
const TRANSACTION_CONFLICTS: ReadonlySet<string> = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

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
