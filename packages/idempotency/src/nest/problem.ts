import { IdempotencyErrorCode, isIdempotencyError, type IdempotencyErrorCode as Code } from '../errors.js';

/** An RFC 9457 problem for an idempotency error, without `type`/`instance` (the app's filter adds those). */
export interface IdempotencyProblem {
  status: number;
  /** Stable, snake_case code for clients. */
  code: string;
  title: string;
  detail: string;
  /** Headers to send with the problem, e.g. `Retry-After`. */
  headers: Record<string, string>;
}

/** Per-code overrides of the `code` and `title` a route publishes (e.g. `payment_in_progress`). */
export type IdempotencyProblemOverrides = Partial<Record<Code, { code?: string; title?: string }>>;

const defaults: Record<Code, { status: number; code: string; title: string }> = {
  [IdempotencyErrorCode.InvalidKey]: {
    status: 400,
    code: 'idempotency_key_invalid',
    title: 'Invalid Idempotency-Key',
  },
  [IdempotencyErrorCode.KeyReuse]: {
    status: 422,
    code: 'idempotency_key_reused',
    title: 'Idempotency-Key reused with different parameters',
  },
  [IdempotencyErrorCode.InProgress]: {
    status: 409,
    code: 'request_in_progress',
    title: 'Request in progress',
  },
  [IdempotencyErrorCode.StoreUnavailable]: {
    status: 503,
    code: 'idempotency_store_unavailable',
    title: 'Idempotency store unavailable',
  },
  [IdempotencyErrorCode.LeaseLost]: {
    status: 409,
    code: 'idempotency_lease_lost',
    title: 'Request superseded',
  },
  [IdempotencyErrorCode.CorruptRecord]: {
    status: 500,
    code: 'idempotency_record_corrupt',
    title: 'Stored result unreadable',
  },
  [IdempotencyErrorCode.InvalidOptions]: { status: 500, code: 'internal_error', title: 'Internal error' },
  [IdempotencyErrorCode.UnencodableResult]: {
    status: 500,
    code: 'idempotency_result_unencodable',
    title: 'Result cannot be stored',
  },
  [IdempotencyErrorCode.TransactionConflict]: {
    status: 503,
    code: 'transaction_conflict',
    title: 'Concurrent update conflict',
  },
};

const keyMissing = { status: 400, code: 'idempotency_key_missing', title: 'Idempotency-Key required' };

// An `@Idempotent()` route whose options fail on a request (its scope returned nothing): the server's mistake, named.
const routeMisconfigured = {
  status: 500,
  code: 'idempotency_route_misconfigured',
  title: 'Idempotent route misconfigured',
};

const details: Record<Code, string> = {
  [IdempotencyErrorCode.InvalidKey]: 'The Idempotency-Key is not acceptable',
  [IdempotencyErrorCode.KeyReuse]:
    'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
  [IdempotencyErrorCode.InProgress]:
    'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
  [IdempotencyErrorCode.StoreUnavailable]:
    'Requests cannot be deduplicated right now, so nothing was done; retry with the same key after Retry-After',
  [IdempotencyErrorCode.LeaseLost]:
    'A newer attempt with this Idempotency-Key took over; retry with the same key to get its result',
  [IdempotencyErrorCode.CorruptRecord]:
    'The stored result for this Idempotency-Key cannot be read; nothing was done',
  [IdempotencyErrorCode.InvalidOptions]: 'The server is misconfigured',
  [IdempotencyErrorCode.UnencodableResult]:
    'The request was carried out but its result cannot be stored or replayed; it will not be carried out again',
  [IdempotencyErrorCode.TransactionConflict]:
    'The request collided with a concurrent one and nothing was committed; retry with the same key after Retry-After',
};

/**
 * Maps an idempotency error (recognised by `code`) to the problem a client should see, or `undefined` for any
 * other error. `Retry-After: 1` for in-progress (a poll hint: the lease bounds a crash, not the usual duration).
 */
export function problemForIdempotencyError(
  error: unknown,
  overrides: IdempotencyProblemOverrides = {},
): IdempotencyProblem | undefined {
  if (!isIdempotencyError(error)) return undefined;
  const missing = 'missing' in error && error.missing === true;
  const misconfigured = error.code === IdempotencyErrorCode.InvalidOptions && 'route' in error;
  const base = missing ? keyMissing : misconfigured ? routeMisconfigured : defaults[error.code];
  const override = (missing || misconfigured ? undefined : overrides[error.code]) ?? {};
  const headers: Record<string, string> = {};
  if (
    error.code === IdempotencyErrorCode.InProgress ||
    error.code === IdempotencyErrorCode.StoreUnavailable ||
    error.code === IdempotencyErrorCode.TransactionConflict
  ) {
    headers['Retry-After'] = '1';
  }
  const detail = missing
    ? 'The Idempotency-Key header is required'
    : misconfigured
      ? `The server is misconfigured: ${error.message}`
      : error.code === IdempotencyErrorCode.InvalidKey && 'reason' in error
        ? `The Idempotency-Key is not acceptable: ${String(error.reason)}`
        : details[error.code];
  return {
    status: base.status,
    code: override.code ?? base.code,
    title: override.title ?? base.title,
    detail,
    headers,
  };
}
