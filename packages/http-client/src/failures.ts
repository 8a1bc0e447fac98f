import { isAxiosError, isCancel, type AxiosError } from 'axios';
import type { CallState } from './call-state.js';
import {
  RequestAbortedError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type HttpClientErrorContext,
} from './http-client.errors.js';

// Codes of failures where the request may or may not have reached the server; with a propagated idempotency key
// a retry is safe either way (that is the point of the key).
export const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_NETWORK',
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set(['ETIMEDOUT', 'ECONNABORTED']);

/**
 * The error a failed call throws: `REQUEST_ABORTED` when its signal fired, `UPSTREAM_TIMEOUT` when the deadline
 * ended it, else `UPSTREAM_UNAVAILABLE`; with the last answer, and whether nobody above may retry it. An error
 * that is not axios' (a defect) passes as it is.
 */
export function toClientError(
  error: unknown,
  state: CallState,
  signal: AbortSignal | undefined,
  markedExhausted: boolean,
): unknown {
  if (!isAxiosError(error) && !isCancel(error)) return error;
  const context: HttpClientErrorContext = {
    method: state.method,
    path: state.path,
    attempts: state.attempts,
    cause: error,
  };
  if (isCancel(error) || signal?.aborted === true) {
    return new RequestAbortedError(
      `${state.method} ${state.path}: aborted by the caller during attempt ${state.attempts}`,
      context,
    );
  }
  const failure = error as AxiosError;
  // The adapter's record of this attempt's answer (axios' own copy has AxiosHeaders).
  const response = failure.response === undefined ? undefined : state.lastResponse;
  // Retried here until the retries were spent, stopped by the budget or the deadline, or retried below: nobody
  // above retries it again.
  const retriesExhausted = state.retriesSpent || state.stoppedBy !== undefined || markedExhausted;
  const full: HttpClientErrorContext = { ...context, response, retriesExhausted };
  const last = response === undefined ? failure.code : `status ${response.status}`;
  const timedOut = failure.code !== undefined && TIMEOUT_CODES.has(failure.code);
  if (state.stoppedBy === 'deadline' || timedOut) {
    return new UpstreamTimeoutError(
      `${state.method} ${state.path}: no answer within the deadline after ${state.attempts} attempt(s) (last: ${last})`,
      full,
    );
  }
  return new UpstreamUnavailableError(
    `${state.method} ${state.path}: upstream unavailable after ${state.attempts} attempt(s) (last: ${last})`,
    full,
  );
}
