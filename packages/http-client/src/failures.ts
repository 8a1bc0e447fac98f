import axios, { AxiosHeaders, type AxiosError } from 'axios';
import type { CallState } from './call-state.js';
import { RETRY_EXHAUSTED_HEADER } from './headers.js';
import {
  RequestAbortedError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type HttpClientErrorContext,
  type UpstreamResponse,
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

/** Axios headers as a plain record, names in lower case. */
export function toHeaderRecord(headers: unknown): Record<string, string> {
  const plain = headers instanceof AxiosHeaders ? headers.toJSON(true) : (headers as Record<string, unknown>);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(plain ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** True when the answer says the hop below already retried it (`x-retry-exhausted: true`). */
export function markedExhausted(error: AxiosError): boolean {
  return toHeaderRecord(error.response?.headers)[RETRY_EXHAUSTED_HEADER] === 'true';
}

/**
 * The error a failed call throws: `REQUEST_ABORTED` when its signal fired, `UPSTREAM_TIMEOUT` when the deadline
 * ended it, else `UPSTREAM_UNAVAILABLE`; with the last answer, and whether nobody above may retry it.
 */
export function toClientError(
  error: unknown,
  state: CallState,
  signal: AbortSignal | undefined,
  isRetryable: (error: AxiosError) => boolean,
): unknown {
  if (!axios.isAxiosError(error) && !axios.isCancel(error)) {
    return error;
  }
  const context: HttpClientErrorContext = {
    method: state.method,
    path: state.path,
    attempts: state.attempts,
    cause: error,
  };
  if (axios.isCancel(error) || signal?.aborted === true) {
    return new RequestAbortedError(
      `${state.method} ${state.path}: aborted by the caller during attempt ${state.attempts}`,
      context,
    );
  }
  const failure = error as AxiosError;
  const response: UpstreamResponse | undefined =
    failure.response === undefined
      ? undefined
      : {
          status: failure.response.status,
          data: failure.response.data as unknown,
          headers: toHeaderRecord(failure.response.headers),
        };
  // Retried here, stopped by the budget or the deadline, or retried below: nobody above retries it again.
  const retriesExhausted =
    state.stoppedBy !== undefined || markedExhausted(failure) || (isRetryable(failure) && state.attempts > 1);
  const full: HttpClientErrorContext = { ...context, response, retriesExhausted };
  const last = response === undefined ? (failure.code ?? failure.message) : `status ${response.status}`;
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
