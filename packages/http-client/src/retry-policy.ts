import type { AxiosError } from 'axios';
import type { IAxiosRetryConfig } from 'axios-retry';
import { backoffDelayMs, type BackoffOptions } from './backoff.js';
import { stateOf, type CallState } from './call-state.js';
import { RETRYABLE_ERROR_CODES } from './failures.js';
import { RETRY_EXHAUSTED_HEADER } from './headers.js';
import type { RetryBudget } from './retry-budget.js';
import { safely } from './request-checks.js';
import { recordRetry } from './tracing.js';
import type { HttpMethod, RetryInfo } from './service-client.options.js';

/** What a client's retries are made of, settled once when it is created. */
export interface RetrySettings {
  readonly retries: number;
  readonly retryStatuses: ReadonlySet<number>;
  readonly minAttemptMs: number;
  readonly budget: RetryBudget | undefined;
  readonly backoff: BackoffOptions;
  readonly onRetry: ((info: RetryInfo) => void) | undefined;
}

// RFC 9110's idempotent methods: sending one twice has the effect of sending it once.
const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

/**
 * Whether a call may be sent again at all: an idempotent method, or a request that carries an `Idempotency-Key`
 * (the server then does it once whatever the attempts; a key per attempt, the demonstration, defeats that). A keyless `POST` is never resent: its first attempt may
 * have charged, and nothing would tell the second from a new payment.
 */
export function mayResend(state: CallState): boolean {
  return state.attemptKey !== undefined || IDEMPOTENT_METHODS.has(state.method);
}

/** True when the last answer says the hop below already retried it (`x-retry-exhausted: true`). */
export function markedExhausted(state: CallState): boolean {
  return state.lastResponse?.headers[RETRY_EXHAUSTED_HEADER] === 'true';
}

/** A failure worth another attempt: a network error or timeout, or one of `retryStatuses` (never a 4xx: it resolves). */
export function isRetryableFailure(error: AxiosError, settings: RetrySettings): boolean {
  if (error.response !== undefined) return settings.retryStatuses.has(error.response.status);
  return error.code !== undefined && RETRYABLE_ERROR_CODES.has(error.code);
}

/**
 * `retryCondition`: axios-retry's default (`isNetworkOrIdempotentRequestError`) resends any method on a network
 * error, a POST too, and never a POST on a timeout or a 5xx; this resends what {@link mayResend} allows, on the
 * failures {@link isRetryableFailure} names, unless the hop below already retried it, the next backoff would pass
 * the deadline, or the retry budget is spent. It settles the backoff `retryDelay` returns.
 */
function shouldRetry(error: AxiosError, settings: RetrySettings): boolean {
  const state = stateOf(error.config);
  if (state === undefined || error.config?.signal?.aborted === true) return false;
  if (!mayResend(state) || !isRetryableFailure(error, settings)) return false;
  // The hop below already retried this failure: retrying it here too would multiply the calls.
  if (markedExhausted(state)) {
    state.stoppedBy = 'exhausted-below';
    return false;
  }
  // A Retry-After is not waited out by a hop (docs/policy.md): it goes up with the answer, for the end client.
  const delayMs = backoffDelayMs(state.attempts, settings.backoff);
  // Never sleep past the deadline, nor start an attempt that has no time left to succeed.
  if (state.deadline - Date.now() - delayMs < settings.minAttemptMs) {
    state.stoppedBy = 'deadline';
    return false;
  }
  // Checked last, so a retry that would not run anyway costs no token.
  if (settings.budget !== undefined && !settings.budget.tryWithdraw()) {
    state.stoppedBy = 'budget';
    return false;
  }
  state.nextDelayMs = delayMs;
  return true;
}

/** `onRetry`: the call span's `retry` event and the client's `onRetry` hook (metrics), before the backoff. */
function reportRetry(retry: number, error: AxiosError, settings: RetrySettings): void {
  const state = stateOf(error.config);
  if (state === undefined) return;
  const info: RetryInfo = {
    retry,
    attempt: state.attempts,
    method: state.method,
    path: state.path,
    delayMs: state.nextDelayMs,
    status: error.response?.status,
    errorCode: error.code,
    idempotencyKey: state.attemptKey,
    requestId: state.requestId,
  };
  safely(() => recordRetry(state.span, info));
  const onRetry = settings.onRetry;
  if (onRetry !== undefined) safely(() => onRetry(info));
}

/**
 * The axios-retry configuration of a client, built once: the thing to copy (docs/policy.md). Each attempt's
 * timeout comes from the call's deadline when the adapter starts it (`shouldResetTimeout`: axios-retry does not
 * shrink a fixed timeout itself); `onMaxRetryTimesExceeded` marks a call whose retries were spent on retryable
 * failures, so the hop passes it up with `x-retry-exhausted` and nobody above retries it again.
 */
export function axiosRetryConfig(settings: RetrySettings): IAxiosRetryConfig {
  return {
    retries: settings.retries,
    shouldResetTimeout: true,
    retryCondition: (error) => shouldRetry(error, settings),
    retryDelay: (_retryCount, error) => stateOf(error.config)?.nextDelayMs ?? 0,
    onRetry: (retryCount, error) => reportRetry(retryCount, error, settings),
    onMaxRetryTimesExceeded: (error, retryCount) => {
      const state = stateOf(error.config);
      if (state !== undefined && retryCount > 0 && isRetryableFailure(error, settings)) {
        state.retriesSpent = true;
      }
    },
  };
}
