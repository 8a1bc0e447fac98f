import { AttemptCode, type AttemptFailure } from './attempt.js';
import type { CallState } from './call-state.js';
import { RETRY_EXHAUSTED_HEADER } from './headers.js';
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

/** True when the answer says the hop below already retried it (`x-retry-exhausted: true`). */
export function markedExhausted(failure: AttemptFailure): boolean {
  return failure.response?.headers[RETRY_EXHAUSTED_HEADER] === 'true';
}

/**
 * The error a failed call throws: `REQUEST_ABORTED` when its signal fired, `UPSTREAM_TIMEOUT` when the deadline
 * ended it, else `UPSTREAM_UNAVAILABLE`; with the last answer, and whether nobody above may retry it.
 */
export function toClientError(
  failure: AttemptFailure,
  state: CallState,
  signal: AbortSignal | undefined,
  isRetryable: (failure: AttemptFailure) => boolean,
): Error {
  const context: HttpClientErrorContext = {
    method: state.method,
    path: state.path,
    attempts: state.attempts,
    cause: failure,
  };
  if (failure.code === AttemptCode.Canceled || signal?.aborted === true) {
    return new RequestAbortedError(
      `${state.method} ${state.path}: aborted by the caller during attempt ${state.attempts}`,
      context,
    );
  }
  const response = failure.response;
  // Retried here, stopped by the budget or the deadline, or retried below: nobody above retries it again.
  const retriesExhausted =
    state.stoppedBy !== undefined || markedExhausted(failure) || (isRetryable(failure) && state.attempts > 1);
  const full: HttpClientErrorContext = { ...context, response, retriesExhausted };
  const last = response === undefined ? failure.code : `status ${response.status}`;
  const timedOut = TIMEOUT_CODES.has(failure.code);
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
