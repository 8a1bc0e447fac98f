import { downstreamProblemMapper, type ProblemExceptionFilterOptions } from '@retry-safe/app-shell';
import { OrdersErrorCode } from './orders-errors.js';

/**
 * What the orders service's errors become (the shell's filter does the rest).
 * - `queue_unavailable`: 503 with `Retry-After: 1`, logged: the queue refusing a job is worth a retry.
 * - Calls to payments that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 */
export const ORDERS_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The orders service',
  mapError: downstreamProblemMapper('The payments service'),
  codes: {
    [OrdersErrorCode.QueueUnavailable]: {
      status: 503,
      title: 'Queue unavailable',
      headers: { 'Retry-After': '1' },
    },
  },
};
