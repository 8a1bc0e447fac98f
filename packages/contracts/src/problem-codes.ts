import { RequestProblemCode } from './http/problem.js';

/**
 * Every `code` a service here puts in a problem body: `snake_case`, stable, what clients switch on. Libraries name
 * their errors in `SCREAMING_CASE` (`IDEMPOTENCY_IN_PROGRESS`, `REDIS_UNAVAILABLE`); each service maps its errors to
 * these codes in one table, its exception filter's code map (the idempotency errors in `@retry-safe/idempotency/nest`'s
 * `problemForIdempotencyError`). The problem `type` is `problemType(code)` (`@retry-safe/contracts/http`).
 */
export const ProblemCode = {
  // Request shape, every service (provider-sim included, hence in `./http`).
  ...RequestProblemCode,
  // Gateway.
  MalformedRequest: 'malformed_request',
  RequestTimeout: 'request_timeout',
  RequestHeadersTooLarge: 'request_headers_too_large',
  // A hop whose downstream failed after its retries.
  UpstreamUnavailable: 'upstream_unavailable',
  UpstreamTimeout: 'upstream_timeout',
  // Orders.
  QueueUnavailable: 'queue_unavailable',
  OrderNotFound: 'order_not_found',
  CurrencyMismatch: 'currency_mismatch',
  PaymentExceedsBalance: 'payment_exceeds_balance',
  InvoiceVersionConflict: 'invoice_version_conflict',
  InvoiceVersionLimit: 'invoice_version_limit',
  InvoiceRateLimited: 'invoice_rate_limited',
  DatabaseUnavailable: 'database_unavailable',
  // Payments.
  PaymentRejected: 'payment_rejected',
  ProviderUnavailable: 'provider_unavailable',
  PaymentInProgress: 'payment_in_progress',
  // Idempotency (published by problemForIdempotencyError).
  IdempotencyKeyReused: 'idempotency_key_reused',
  IdempotencyStoreUnavailable: 'idempotency_store_unavailable',
  // invoice-worker.
  RedisUnavailable: 'redis_unavailable',
} as const;
/** One of {@link ProblemCode}'s values. */
export type ProblemCode = (typeof ProblemCode)[keyof typeof ProblemCode];
