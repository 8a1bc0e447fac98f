import {
  describeError,
  downstreamProblemMapper,
  requestIdOf,
  type ProblemExceptionFilterOptions,
  type ProblemMapper,
} from '@retry-safe/app-shell/http';
import { ProblemCode } from '@retry-safe/contracts';
import { problem } from '@retry-safe/contracts/http';
import { InvoiceRateLimitedError, OrdersErrorCode } from './orders-errors.js';

const fromPayments = downstreamProblemMapper('The payments service');

// SQLSTATE classes and socket errors that mean "the database is not there now" (a retry may succeed), not a bug.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * True for an error of node-postgres saying the database cannot be reached or went away. Read by shape, not
 * `instanceof Error`: socket errors are made by Node's core, in another realm than a test's VM context.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|not queryable/.test(message)
  );
}

// The library's errors never get here: the shell's filter maps them first, with the library's own mapping. Then the
// database, then calls to payments.
const mapOrdersError: ProblemMapper = (error, context) => {
  if (error instanceof InvoiceRateLimitedError) {
    // Retry-After in whole seconds, at least 1: the moment the tenant's next request fits.
    const retryAfter = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
    return {
      problem: problem(429, error.code, 'Too many invoice requests', error.message),
      headers: { 'Retry-After': retryAfter },
    };
  }
  if (isDatabaseUnavailable(error)) {
    context.logger.warn({
      msg: 'database unavailable',
      requestId: requestIdOf(context.req),
      error: describeError(error),
    });
    const detail = 'The orders database is unavailable; nothing was changed, retry later';
    return {
      problem: problem(503, ProblemCode.DatabaseUnavailable, 'Database unavailable', detail),
      headers: { 'Retry-After': '1' },
    };
  }
  return fromPayments(error, context);
};

/**
 * What the orders service's errors become (the shell's filter does the rest).
 * - Idempotency errors through `problemForIdempotencyError`: 422 `idempotency_key_reused`, 409 + `Retry-After`
 *   while a duplicate runs, 503 `idempotency_store_unavailable`.
 * - The database unreachable: 503 `database_unavailable` with `Retry-After: 1` (its transaction did not commit).
 * - `order_not_found` 404; `currency_mismatch`, `payment_exceeds_balance`, `invoice_version_conflict`,
 *   `invoice_version_limit` 422; `payment_in_progress` 409 + `Retry-After: 1` (the balance is reserved by payments
 *   in flight); `invoice_rate_limited` 429 with `Retry-After` (seconds until the next request fits);
 *   `queue_unavailable` 503.
 * - Calls to payments that failed after their retries: a 503 problem from downstream passes up unchanged; anything
 *   else becomes 502 `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: they are relayed.)
 */
export const ORDERS_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The orders service',
  mapError: mapOrdersError,
  codes: {
    [OrdersErrorCode.QueueUnavailable]: {
      status: 503,
      title: 'Queue unavailable',
      headers: { 'Retry-After': '1' },
    },
    [OrdersErrorCode.OrderNotFound]: { status: 404, title: 'Order not found' },
    [OrdersErrorCode.CurrencyMismatch]: { status: 422, title: 'Currency mismatch' },
    [OrdersErrorCode.PaymentExceedsBalance]: { status: 422, title: 'Payment exceeds balance' },
    [OrdersErrorCode.PaymentInProgress]: {
      status: 409,
      title: 'Payment in progress',
      headers: { 'Retry-After': '1' },
    },
    [OrdersErrorCode.InvoiceVersionConflict]: { status: 422, title: 'Invoice version conflict' },
    [OrdersErrorCode.InvoiceVersionLimit]: { status: 422, title: 'Invoice version limit' },
  },
};
