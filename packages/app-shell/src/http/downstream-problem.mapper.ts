import { HttpClientErrorCode, RETRY_EXHAUSTED_HEADER, isHttpClientError } from '@retry-safe/http-client';
import { isProblem, problem } from '@retry-safe/contracts/http';
import type { ProblemMapper } from './problem-exception.filter.js';
import { requestIdOf } from './request-context.js';

/**
 * The mapping of a hop that calls another of our services (gateway to orders, orders to payments) once the call
 * failed after its retries (4xx answers never get here: controllers {@link relay} them):
 * - The hop got a problem answer (a 5xx): its status, body and `Retry-After` pass up unchanged, so a 500
 *   `idempotency_record_corrupt` reaches the client as that, not as a 502.
 * - It got no answer (or one that is not a problem): 502 `upstream_unavailable`, or 504 `upstream_timeout`.
 * Either way, `x-retry-exhausted: true` goes with it when this hop retried the failure (or its budget or the
 * deadline stopped it, or the answer carried the header): the caller above passes it up instead of retrying.
 * @param downstream - names the called service in the problem detail, e.g. `The orders service`.
 */
export function downstreamProblemMapper(downstream: string): ProblemMapper {
  return (error, { req, logger, internalError }) => {
    if (!isHttpClientError(error)) return undefined;
    const exhausted: Record<string, string> = error.retriesExhausted
      ? { [RETRY_EXHAUSTED_HEADER]: 'true' }
      : {};
    const last = error.response;
    if (last !== undefined && last.status >= 500 && isProblem(last.data)) {
      const retryAfter = last.headers['retry-after'];
      return {
        problem: last.data,
        headers: retryAfter === undefined ? exhausted : { ...exhausted, 'Retry-After': retryAfter },
      };
    }
    logger.warn({
      msg: 'upstream failed',
      requestId: requestIdOf(req),
      code: error.code,
      error: error.message,
    });
    switch (error.code) {
      case HttpClientErrorCode.UpstreamTimeout:
        return {
          problem: problem(
            504,
            'upstream_timeout',
            'Upstream timeout',
            `${downstream} did not answer in time`,
          ),
          headers: exhausted,
        };
      case HttpClientErrorCode.UpstreamUnavailable:
        return {
          problem: problem(
            502,
            'upstream_unavailable',
            'Upstream unavailable',
            `${downstream} is unavailable`,
          ),
          headers: exhausted,
        };
      default:
        return internalError();
    }
  };
}
