export {
  DEADLINE_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  REQUEST_ID_HEADER,
  RETRY_EXHAUSTED_HEADER,
} from './headers.js';
export { DEFAULT_MIN_ATTEMPT_MS, HOP_DEADLINE_MARGIN_MS } from './defaults.js';
export { retryAfterMs } from './backoff.js';
export { parseDeadline, remainingMs } from './deadline.js';
export { signalWhenCallerLeaves } from './caller-signal.js';
export { DEFAULT_RETRY_BUDGET, RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
export { createServiceClient } from './service-client.js';
// Every type of the options module is the client's public surface (ServiceClient, its options, its answers).
export type * from './service-client.options.js';
export {
  HttpClientError,
  HttpClientErrorCode,
  InvalidRequestError,
  RequestAbortedError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  isHttpClientError,
  type HttpClientErrorContext,
  type UpstreamResponse,
} from './http-client.errors.js';
