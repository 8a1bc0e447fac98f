import type { Context, Span } from '@opentelemetry/api';
import type { AxiosRequestConfig } from 'axios';
import type { UpstreamResponse } from './http-client.errors.js';
import type { HttpMethod } from './service-client.options.js';

/** The axios config field that carries a call's {@link CallState} through axios and axios-retry, to the adapter. */
export const STATE_KEY = 'retrySafeCall';

/** Why a call stopped retrying a retryable failure before its `retries` were spent. */
export type Stop = 'deadline' | 'budget' | 'exhausted-below' | undefined;

/**
 * State of one call across its attempts. A class instance, so axios' config merging (once per attempt) keeps it by
 * reference: the adapter, `retryCondition`, `retryDelay` and `onRetry` all see the same one.
 */
export class CallState {
  attempts = 0;
  nextDelayMs = 0;
  stoppedBy: Stop = undefined;
  /** Set by `onMaxRetryTimesExceeded`: every retry was spent on retryable failures. */
  retriesSpent = false;
  /** The last answer an attempt got, headers as a plain record (the call's result, or its error's response). */
  lastResponse: UpstreamResponse | undefined = undefined;
  /** The key the current attempt sends (the call's, or `keyPerAttempt`'s for this attempt). */
  attemptKey: string | undefined;
  /** The call's span, and the context its attempt spans start under. */
  span: Span | undefined = undefined;
  traceContext: Context | undefined = undefined;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly deadline: number,
    readonly idempotencyKey: string | undefined,
    readonly requestId: string | undefined,
    /** Every header of every attempt but the deadline and the trace context, built once per call. */
    readonly headers: Record<string, string>,
    /** The serialised JSON body, if any (serialised once, not per attempt). */
    readonly body: string | undefined,
    /** `CallOptions.idempotencyKeyPerAttempt` (a demonstration of the unsafe design). */
    readonly keyPerAttempt?: (attempt: number) => string,
  ) {
    this.attemptKey = idempotencyKey;
  }
}

/** An axios config that carries a call's state. */
export type ConfigWithState = AxiosRequestConfig & { [STATE_KEY]?: CallState };

/** The state of the call `config` belongs to (undefined for a config that is not one of this client's). */
export function stateOf(config: AxiosRequestConfig | undefined): CallState | undefined {
  const state = (config as ConfigWithState | undefined)?.[STATE_KEY];
  return state instanceof CallState ? state : undefined;
}
