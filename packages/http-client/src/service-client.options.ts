import type { Tracer } from '@opentelemetry/api';
import type { RetryBudgetOptions } from './retry-budget.js';

/** HTTP methods the client sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What {@link ServiceClientOptions.onAttempt} receives, once per attempt, before it is sent. */
export interface AttemptInfo {
  /** 1 for the first attempt. */
  attempt: number;
  method: HttpMethod;
  path: string;
  baseURL: string;
  /** This attempt's timeout: `min(attemptTimeoutMs, time left before the deadline)`. */
  timeoutMs: number;
  remainingMs: number;
  /** The call's deadline. */
  deadline: number;
  /** The deadline this attempt sends as `x-request-deadline` (see `attemptDeadlineMarginMs`). */
  sentDeadline: number;
  /** The key this attempt sends. */
  idempotencyKey: string | undefined;
  requestId: string | undefined;
}

/** What {@link ServiceClientOptions.onRetry} receives when a failed attempt is about to be retried. */
export interface RetryInfo {
  /** 1 for the first retry (so attempt `retry + 1` comes next). */
  retry: number;
  /** The attempt that failed. */
  attempt: number;
  method: HttpMethod;
  path: string;
  /** The backoff before the next attempt. */
  delayMs: number;
  /** Status of the failed attempt (502/503/504), or undefined for a network error or timeout. */
  status: number | undefined;
  /** Error code of the failed attempt (`ECONNRESET`, `ETIMEDOUT`, `ERR_BAD_RESPONSE`...). */
  errorCode: string | undefined;
  idempotencyKey: string | undefined;
  requestId: string | undefined;
}

/** Options of {@link createServiceClient}. Give `baseURL` or `baseURLs`. */
export interface ServiceClientOptions {
  /**
   * The service called (`payments`), in span names (`call payments`, `attempt payments`) and attributes.
   * @default the host of the first base URL
   */
  name?: string;
  /**
   * Records a span per call and a child span per attempt (its number and outcome), under the caller's active span.
   * The attempt span is the HTTP client span (kind CLIENT, OpenTelemetry's HTTP client attributes) and its
   * `traceparent` goes out with the request (the global propagator), so the next hop's server span sits under it:
   * turn the HTTP instrumentation's outgoing side off where this client makes the calls, or each request gets a
   * second client span.
   * @default the global tracer provider's `@retry-safe/http-client` tracer (a no-op until an SDK is registered)
   */
  tracer?: Tracer;
  /** Base URL of the service, e.g. `http://127.0.0.1:3002`. */
  baseURL?: string;
  /** Several base URLs of the same service, used round robin, one per attempt (a retry goes to the next one). */
  baseURLs?: readonly string[];
  /**
   * Retries after the first attempt.
   * @default 3
   */
  retries?: number;
  /**
   * Bounds the retries of every call of this client together (see `RetryBudget`); `false` turns it off.
   * @default `DEFAULT_RETRY_BUDGET`: ratio 0.1, burst 10
   */
  retryBudget?: RetryBudgetOptions | false;
  /**
   * Backoff of the first retry; doubles with each retry, with jitter (half to all of the value). A `Retry-After`
   * on the answer is not waited out: it is passed up with the answer, for the end client (a hop that waited a
   * second per retry at every layer is what made a chain answer in 9 s).
   * @default 50
   */
  baseDelayMs?: number;
  /**
   * Upper bound of one backoff.
   * @default 1000
   */
  maxDelayMs?: number;
  /**
   * Timeout of one attempt; the deadline lowers it when less time is left.
   * @default 2000
   */
  attemptTimeoutMs?: number;
  /**
   * Budget of a call that passes no `deadline` (the deadline is then now + this).
   * @default 10000
   */
  defaultBudgetMs?: number;
  /**
   * No attempt (the first included) starts with less time than this left before the deadline (after its backoff).
   * @default 50
   */
  minAttemptMs?: number;
  /**
   * When set, each attempt sends as `x-request-deadline` its own end (its start plus its timeout) minus this
   * margin, instead of the call's deadline: the next hop's attempts then time out before this one does, with time
   * left for their answer (or their own 504) to come back. So timeouts shrink along the chain.
   * @default undefined: the call's deadline is sent unchanged
   */
  attemptDeadlineMarginMs?: number;
  /**
   * Statuses that are retried, unless the answer carries `x-retry-exhausted`. 4xx is never retried by a hop:
   * it passes up to the caller.
   * @default [502, 503, 504]
   */
  retryStatuses?: readonly number[];
  /**
   * Headers sent on every call (a call's own headers win).
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * Called before every attempt (metrics, scenario recordings). Errors it throws are ignored.
   * @default undefined
   */
  onAttempt?: (info: AttemptInfo) => void;
  /**
   * Called when a failed attempt will be retried, before the backoff. Errors it throws are ignored.
   * @default undefined
   */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Source of jitter, a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/** Per-call options. */
export interface CallOptions {
  /** Sent as `Idempotency-Key` on every attempt, exactly as given (pass the client's raw header value). */
  idempotencyKey?: string;
  /**
   * DEMONSTRATION of the unsafe design (the gateway's `GATEWAY_KEY_MODE=regenerate`), never for real traffic:
   * called as each attempt starts, its result is that attempt's `Idempotency-Key`, sent as given. No server can
   * then tell a retry from a new request, so a retry after a lost answer does the work again. The call is retried
   * like a keyed one. Takes the place of `idempotencyKey`.
   */
  idempotencyKeyPerAttempt?: (attempt: number) => string;
  /**
   * Absolute deadline (epoch ms) of the whole chain; sent as `x-request-deadline` on every attempt.
   * @default Date.now() + defaultBudgetMs
   */
  deadline?: number;
  /** Sent as `x-request-id` on every attempt. */
  requestId?: string;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /**
   * Aborts the call: the attempt in flight is abandoned (its connection closed) and no retry follows; the call
   * rejects with `REQUEST_ABORTED`. Pass `signalWhenCallerLeaves` of the incoming request, so a hop stops
   * working for a caller that went away.
   */
  signal?: AbortSignal;
}

/** Options of {@link ServiceClient.request}. */
export interface RequestOptions extends CallOptions {
  /** JSON body. */
  body?: unknown;
}

/**
 * A 2xx, 3xx or 4xx answer. 4xx is returned, not thrown, so its status, `code` and `Retry-After` can pass up
 * unchanged; check `ok` (2xx) before reading `data` as `T`.
 */
export type ServiceResponse<T> =
  | { ok: true; status: number; data: T; headers: Record<string, string>; attempts: number }
  | { ok: false; status: number; data: unknown; headers: Record<string, string>; attempts: number };

/** Calls one downstream service with retries inside a deadline. Create one per downstream service. */
export interface ServiceClient {
  request<T = unknown>(
    method: HttpMethod,
    path: string,
    options?: RequestOptions,
  ): Promise<ServiceResponse<T>>;
  post<T = unknown>(path: string, body: unknown, options?: CallOptions): Promise<ServiceResponse<T>>;
  get<T = unknown>(path: string, options?: CallOptions): Promise<ServiceResponse<T>>;
}
