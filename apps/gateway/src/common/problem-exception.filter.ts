import { Catch } from '@nestjs/common';
import {
  ProblemExceptionFilter as ServiceProblemExceptionFilter,
  downstreamProblemMapper,
  problem,
  type ProblemMapper,
} from '@retry-safe/app-shell';
import { GatewayErrorCode, isGatewayError } from './gateway-errors.js';

const toOrders = downstreamProblemMapper('The orders service');

// The only code of the gateway's own that the shared filter does not know.
const mapGatewayError: ProblemMapper = (error, context) => {
  if (isGatewayError(error) && error.code === GatewayErrorCode.Unauthorized) {
    return { problem: problem(401, GatewayErrorCode.Unauthorized, 'Unauthorized', error.message) };
  }
  return toOrders(error, context);
};

/**
 * The gateway's only exception filter: every error leaves as `application/problem+json`.
 * - The gateway's own errors map by `code` (401, 400, 415).
 * - Calls to orders that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 * - Nest's and body-parser's HttpExceptions keep their status with a stable code; the rest is a logged 500.
 */
@Catch()
export class ProblemExceptionFilter extends ServiceProblemExceptionFilter {
  constructor() {
    super({ serviceName: 'The gateway', mapError: mapGatewayError });
  }
}
