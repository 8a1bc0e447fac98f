import { downstreamProblemMapper, type ProblemExceptionFilterOptions } from '@retry-safe/app-shell/http';

/** What the gateway tells a client that sent no `Idempotency-Key` (it is the edge: say what to do). */
export const IDEMPOTENCY_KEY_MISSING_MESSAGE =
  'The Idempotency-Key header is required: send a unique key per payment and reuse it on every retry';

/**
 * What the gateway's errors become (the shell's filter does the rest: the library's key errors, 400, 401 and 415
 * for the shared codes, Nest's and body-parser's HttpExceptions, a logged 500).
 * - A request without `Idempotency-Key`: the library's 400 `idempotency_key_missing`, with the gateway's advice.
 * - Calls to orders that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 */
export const GATEWAY_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The gateway',
  mapError: downstreamProblemMapper('The orders service'),
  keyMissingDetail: IDEMPOTENCY_KEY_MISSING_MESSAGE,
};
