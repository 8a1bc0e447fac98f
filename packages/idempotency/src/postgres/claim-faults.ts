import { isIdempotencyError } from '../errors.js';
import { ClaimStatus, type ClaimResult } from '../store.js';
import { sqlStateOf } from './sql-errors.js';

/** SQLSTATE of a lock wait that ran into `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * How soon to claim again after a lock wait: the holder is a claim not yet committed (usually a caller's open
 * transaction), whose end is not known; the next claim waits on the lock again, and so ends with that transaction.
 */
export const LOCK_WAIT_RETRY_AFTER_MS = 100;

/**
 * A standalone claim whose lock wait ran out met another session's uncommitted claim of the key (an open
 * transaction that claimed it, or a takeover in flight): the key is in progress, not the store unavailable. Only
 * for standalone claims; inside a caller's transaction a 55P03 aborted that transaction, which must roll back.
 */
export function lockWaitAsInProgress(error: unknown): ClaimResult | undefined {
  const cause = isIdempotencyError(error) ? error.cause : error;
  if (sqlStateOf(cause) !== LOCK_NOT_AVAILABLE) return undefined;
  return { status: ClaimStatus.InProgress, retryAfterMs: LOCK_WAIT_RETRY_AFTER_MS };
}

/**
 * Ends the backend a claim without an answer was sent to, waiting (up to $3 ms) until it is gone; no row when it
 * is gone already. Guarded against a recycled process id: the backend must have started at least $2 ms ago (when
 * the claim's connection was taken from the pool, it was already running), in this database, as this role.
 */
export const endBackendSql = `SELECT pg_terminate_backend(pid, $3::bigint) AS ended FROM pg_stat_activity
  WHERE pid = $1::int AND backend_type = 'client backend' AND datname = current_database() AND usename = current_user
    AND backend_start <= statement_timestamp() - $2::float8 * interval '1 ms'`;
