import { Catch } from '@nestjs/common';
import { HttpClientErrorCode, isHttpClientError } from '@retry-safe/http-client';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { problemForIdempotencyError } from '@retry-safe/idempotency/nest';
import {
  ProblemExceptionFilter as ServiceProblemExceptionFilter,
  describeError,
  problem,
  requestIdOf,
  type ProblemMapper,
} from '@retry-safe/app-shell';
import { PaymentsErrorCode, isPaymentsError } from './payments-errors.js';

// Idempotency first: the coordinator's codes take precedence, as they did before the filter was shared.
const mapPaymentsError: ProblemMapper = (error, { req, logger }) => {
  const idempotency = problemForIdempotencyError(error, {
    [IdempotencyErrorCode.InProgress]: { code: 'payment_in_progress', title: 'Payment in progress' },
  });
  if (idempotency !== undefined) {
    if (idempotency.status >= 500) {
      logger.warn({ msg: 'idempotency failure', requestId: requestIdOf(req), error: describeError(error) });
    }
    const { status, code, title, detail, headers } = idempotency;
    return { problem: problem(status, code, title, detail), headers };
  }
  if (isPaymentsError(error) && error.code === PaymentsErrorCode.PaymentRejected) {
    return { problem: problem(422, error.code, 'Payment rejected', error.message) };
  }
  if (isHttpClientError(error)) {
    logger.warn({
      msg: 'provider failed',
      requestId: requestIdOf(req),
      code: error.code,
      error: error.message,
    });
    if (error.code === HttpClientErrorCode.UpstreamTimeout) {
      return {
        problem: problem(
          504,
          'upstream_timeout',
          'Upstream timeout',
          'The payment provider did not answer in time',
        ),
      };
    }
    if (error.code === HttpClientErrorCode.UpstreamUnavailable) {
      return {
        problem: problem(
          502,
          'upstream_unavailable',
          'Upstream unavailable',
          'The payment provider is unavailable',
        ),
      };
    }
  }
  // Anything else (another HttpClientError included) goes on to the shared mapping, and ends as a logged 500.
  return undefined;
};

/**
 * The payments service's only exception filter: every error leaves as `application/problem+json`.
 * - Idempotency errors through the adapter's `problemForIdempotencyError`, with this route's code for a duplicate
 *   in flight: 409 `payment_in_progress` + `Retry-After: 1`; 422 `idempotency_key_reused`; 503
 *   `idempotency_store_unavailable` + `Retry-After`; 400 `idempotency_key_invalid`.
 * - The service's own errors map by `code`.
 * - The provider failing after the retries: 502 `upstream_unavailable` or 504 `upstream_timeout` (the provider is
 *   an external system: its own problem bodies are not passed on).
 * - Nest's and body-parser's HttpExceptions keep their status with a stable code; the rest is a logged 500.
 */
@Catch()
export class ProblemExceptionFilter extends ServiceProblemExceptionFilter {
  constructor() {
    super({ serviceName: 'The payments service', mapError: mapPaymentsError });
  }
}
