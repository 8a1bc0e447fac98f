import {
  requestIdOf,
  type ProblemExceptionFilterOptions,
  type ProblemMapper,
} from '@retry-safe/app-shell/http';
import { ProblemCode } from '@retry-safe/contracts';
import { problem } from '@retry-safe/contracts/http';
import { HttpClientErrorCode, RETRY_EXHAUSTED_HEADER, isHttpClientError } from '@retry-safe/http-client';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { PaymentsErrorCode, ProviderUnavailableError } from './payments-errors.js';

// The idempotency errors are the shell's filter's (the library's mapping, with PAYMENTS_PROBLEMS' override).
const mapPaymentsError: ProblemMapper = (error, { req, logger }) => {
  if (error instanceof ProviderUnavailableError) {
    // Throttling is the provider's pushback: the end client retries after Retry-After, not every hop at once.
    return {
      problem: problem(503, error.code, 'Payment provider unavailable', error.message),
      headers: { 'Retry-After': String(error.retryAfterSeconds), [RETRY_EXHAUSTED_HEADER]: 'true' },
    };
  }
  if (!isHttpClientError(error)) return undefined;
  logger.warn({
    msg: 'provider failed',
    requestId: requestIdOf(req),
    code: error.code,
    error: error.message,
  });
  if (error.code === HttpClientErrorCode.UpstreamTimeout) {
    const detail = 'The payment provider did not answer in time';
    return { problem: problem(504, ProblemCode.UpstreamTimeout, 'Upstream timeout', detail) };
  }
  if (error.code === HttpClientErrorCode.UpstreamUnavailable) {
    const detail = 'The payment provider is unavailable';
    return { problem: problem(502, ProblemCode.UpstreamUnavailable, 'Upstream unavailable', detail) };
  }
  // Another HttpClientError goes on to the shared mapping, and ends as a logged 500.
  return undefined;
};

/**
 * What the payments service's errors become (the shell's filter does the rest).
 * - Idempotency errors through the library's mapping (in the shell's filter), with this route's code for a
 *   duplicate in flight: 409 `payment_in_progress` + `Retry-After: 1`; 422 `idempotency_key_reused`; 503
 *   `idempotency_store_unavailable` + `Retry-After`; 400 `idempotency_key_invalid`.
 * - `payment_rejected`: 422 (the provider refused the charge for good); `provider_unavailable`: 503 with the
 *   provider's `Retry-After` and `x-retry-exhausted` (it throttled: 429, 408 or 503; no hop retries it).
 * - The provider failing after the retries: 502 `upstream_unavailable` or 504 `upstream_timeout` (the provider is
 *   an external system: its own problem bodies are not passed on).
 */
export const PAYMENTS_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The payments service',
  mapError: mapPaymentsError,
  idempotencyOverrides: {
    [IdempotencyErrorCode.InProgress]: { code: ProblemCode.PaymentInProgress, title: 'Payment in progress' },
  },
  codes: { [PaymentsErrorCode.PaymentRejected]: { status: 422, title: 'Payment rejected' } },
};
