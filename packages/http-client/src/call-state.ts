import type { Context, Span } from '@opentelemetry/api';
import type { HttpMethod } from './service-client.options.js';

/** Why a call stopped retrying a retryable failure before its `retries` were spent. */
export type Stop = 'deadline' | 'budget' | 'exhausted-below' | undefined;

/** State of one call across its attempts. */
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
