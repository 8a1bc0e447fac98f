import { downstreamProblemMapper, type ProblemExceptionFilterOptions } from '@retry-safe/app-shell';

/**
 * What the gateway's errors become (the shell's filter does the rest: 400, 401 and 415 for the shared codes, Nest's
 * and body-parser's HttpExceptions, a logged 500).
 * - Calls to orders that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 */
export const GATEWAY_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The gateway',
  mapError: downstreamProblemMapper('The orders service'),
};
