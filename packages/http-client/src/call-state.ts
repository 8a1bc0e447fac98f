import type { Context, Span } from '@opentelemetry/api';
import type { AxiosRequestConfig } from 'axios';
import type { HttpMethod } from './service-client.options.js';

export const STATE_KEY = 'retrySafeCall';

/** Why a call stopped retrying a retryable failure before its `retries` were spent. */
export type Stop = 'deadline' | 'budget' | 'exhausted-below' | undefined;

/** State of one call across its attempts; a class instance, so axios' config merging keeps it by reference. */
export class CallState {
  attempts = 0;
  nextDelayMs = 0;
  stoppedBy: Stop = undefined;
  /** The call's span, and the context its attempt spans start under. */
  span: Span | undefined = undefined;
  traceContext: Context | undefined = undefined;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly deadline: number,
    readonly idempotencyKey: string | undefined,
    readonly requestId: string | undefined,
  ) {}
}

export type ConfigWithState = AxiosRequestConfig & { [STATE_KEY]?: CallState };

export function stateOf(config: AxiosRequestConfig | undefined): CallState | undefined {
  const state = (config as ConfigWithState | undefined)?.[STATE_KEY];
  return state instanceof CallState ? state : undefined;
}
