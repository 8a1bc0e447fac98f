import { Catch } from '@nestjs/common';
import {
  ProblemExceptionFilter as ServiceProblemExceptionFilter,
  downstreamProblemMapper,
  problem,
  requestIdOf,
  type ProblemMapper,
} from '@retry-safe/app-shell';
import { OrdersErrorCode, isOrdersError } from './orders-errors.js';

const toPayments = downstreamProblemMapper('The payments service');

// The only code of orders' own that the shared filter does not know: the queue refusing a job is worth a retry.
const mapOrdersError: ProblemMapper = (error, context) => {
  if (isOrdersError(error) && error.code === OrdersErrorCode.QueueUnavailable) {
    context.logger.warn({
      msg: error.message,
      requestId: requestIdOf(context.req),
      cause: String(error.cause),
    });
    return {
      problem: problem(503, error.code, 'Queue unavailable', error.message),
      headers: { 'Retry-After': '1' },
    };
  }
  return toPayments(error, context);
};

/**
 * The orders service's only exception filter: every error leaves as `application/problem+json`.
 * - The service's own errors map by `code` (400, 415, 503 `queue_unavailable` with `Retry-After`).
 * - Calls to payments that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 * - Nest's and body-parser's HttpExceptions keep their status with a stable code; the rest is a logged 500.
 */
@Catch()
export class ProblemExceptionFilter extends ServiceProblemExceptionFilter {
  constructor() {
    super({ serviceName: 'The orders service', mapError: mapOrdersError });
  }
}
