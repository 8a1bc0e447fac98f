import axios, { AxiosHeaders, type AxiosError, type AxiosInstance, type AxiosRequestConfig } from 'axios';
import axiosRetry from 'axios-retry';
import { backoffDelayMs, retryAfterMs } from './backoff.js';
import {
  InvalidRequestError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type HttpClientErrorContext,
  type UpstreamResponse,
} from './http-client.errors.js';
import { DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './headers.js';

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
  deadline: number;
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
   * Backoff of the first retry; doubles with each retry, with jitter (half to all of the value).
   * @default 50
   */
  baseDelayMs?: number;
  /**
   * Upper bound of one backoff, also of a `Retry-After` hint.
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
   * No retry starts with less time than this left before the deadline (after its backoff).
   * @default 20
   */
  minAttemptMs?: number;
  /**
   * Statuses that are retried. 4xx is never retried by a hop: it passes up to the caller.
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
   * Absolute deadline (epoch ms) of the whole chain; sent as `x-request-deadline` on every attempt.
   * @default Date.now() + defaultBudgetMs
   */
  deadline?: number;
  /** Sent as `x-request-id` on every attempt. */
  requestId?: string;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
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

// Codes of failures where the request may or may not have reached the server; with a propagated idempotency key
// a retry is safe either way (that is the point of the key).
const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set([
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
// What axios would strip or trim from a header value: an idempotency key must never be altered silently.
const SAFE_HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

const STATE_KEY = 'retrySafeCall';

/** State of one call across its attempts; a class instance, so axios' config merging keeps it by reference. */
class CallState {
  attempts = 0;
  nextDelayMs = 0;
  stoppedByDeadline = false;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly deadline: number,
    readonly idempotencyKey: string | undefined,
    readonly requestId: string | undefined,
  ) {}
}

type ConfigWithState = AxiosRequestConfig & { [STATE_KEY]?: CallState };

function stateOf(config: AxiosRequestConfig | undefined): CallState | undefined {
  const state = (config as ConfigWithState | undefined)?.[STATE_KEY];
  return state instanceof CallState ? state : undefined;
}

function safely(hook: () => void): void {
  try {
    hook();
  } catch {
    // Hooks feed metrics and recordings; they must not change the outcome of a call.
  }
}

function toHeaderRecord(headers: unknown): Record<string, string> {
  const plain = headers instanceof AxiosHeaders ? headers.toJSON(true) : (headers as Record<string, unknown>);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(plain ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** Creates a {@link ServiceClient} (axios + axios-retry). */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  return new AxiosServiceClient(options);
}

class AxiosServiceClient implements ServiceClient {
  private readonly http: AxiosInstance;
  private readonly baseURLs: readonly string[];
  private readonly retryStatuses: ReadonlySet<number>;
  private readonly attemptTimeoutMs: number;
  private readonly defaultBudgetMs: number;
  private readonly minAttemptMs: number;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number; random: () => number };
  private nextBaseURL = 0;

  constructor(private readonly options: ServiceClientOptions) {
    const baseURLs = options.baseURLs ?? (options.baseURL === undefined ? [] : [options.baseURL]);
    if (baseURLs.length === 0) {
      throw new InvalidRequestError('createServiceClient needs baseURL or baseURLs', {
        method: '-',
        path: '-',
        attempts: 0,
      });
    }
    this.baseURLs = [...baseURLs];
    this.retryStatuses = new Set(options.retryStatuses ?? [502, 503, 504]);
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
    this.defaultBudgetMs = options.defaultBudgetMs ?? 10_000;
    this.minAttemptMs = options.minAttemptMs ?? 20;
    this.backoff = {
      baseDelayMs: options.baseDelayMs ?? 50,
      maxDelayMs: options.maxDelayMs ?? 1000,
      random: options.random ?? Math.random,
    };

    this.http = axios.create({
      // 2xx-4xx resolve (4xx passes up unchanged); 5xx rejects so that axios-retry sees it.
      validateStatus: (status) => status < 500,
      maxRedirects: 0,
      // Timeouts become ETIMEDOUT instead of ECONNABORTED (which axios-retry's defaults never retry).
      transitional: { silentJSONParsing: true, forcedJSONParsing: true, clarifyTimeoutError: true },
    });

    // Runs before every attempt, retries included: axios-retry re-enters the instance with the same config.
    this.http.interceptors.request.use((config) => {
      const state = stateOf(config);
      if (state === undefined) return config;
      state.attempts += 1;
      const remaining = state.deadline - Date.now();
      const timeoutMs = Math.max(1, Math.min(this.attemptTimeoutMs, remaining));
      const baseURL = this.pickBaseURL();
      config.baseURL = baseURL;
      config.timeout = timeoutMs;
      config.headers.set(DEADLINE_HEADER, String(state.deadline));
      const onAttempt = this.options.onAttempt;
      if (onAttempt !== undefined) {
        safely(() =>
          onAttempt({
            attempt: state.attempts,
            method: state.method,
            path: state.path,
            baseURL,
            timeoutMs,
            remainingMs: Math.max(0, remaining),
            deadline: state.deadline,
            idempotencyKey: state.idempotencyKey,
            requestId: state.requestId,
          }),
        );
      }
      return config;
    });

    axiosRetry(this.http, {
      retries: options.retries ?? 3,
      // Each attempt gets its own timeout (set above from the deadline), not a share of one overall timeout.
      shouldResetTimeout: true,
      retryCondition: (error) => this.shouldRetry(error),
      retryDelay: (_retryCount, error) => stateOf(error.config)?.nextDelayMs ?? 0,
      onRetry: (retryCount, error, config) => {
        const state = stateOf(config);
        const onRetry = this.options.onRetry;
        if (state === undefined || onRetry === undefined) return;
        safely(() =>
          onRetry({
            retry: retryCount,
            attempt: state.attempts,
            method: state.method,
            path: state.path,
            delayMs: state.nextDelayMs,
            status: error.response?.status,
            errorCode: error.code,
            idempotencyKey: state.idempotencyKey,
            requestId: state.requestId,
          }),
        );
      },
    });
  }

  post<T>(path: string, body: unknown, options: CallOptions = {}): Promise<ServiceResponse<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  get<T>(path: string, options: CallOptions = {}): Promise<ServiceResponse<T>> {
    return this.request<T>('GET', path, options);
  }

  async request<T>(
    method: HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<ServiceResponse<T>> {
    const now = Date.now();
    const deadline = options.deadline ?? now + this.defaultBudgetMs;
    const headers: Record<string, string> = { ...this.options.headers, ...options.headers };
    if (options.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey;
    if (options.requestId !== undefined) headers[REQUEST_ID_HEADER] = options.requestId;
    this.assertValid(method, path, deadline, headers);

    const state = new CallState(method, path, deadline, options.idempotencyKey, options.requestId);
    if (deadline <= now) {
      throw new UpstreamTimeoutError(`${method} ${path}: the deadline had passed before the first attempt`, {
        method,
        path,
        attempts: 0,
      });
    }

    const config: ConfigWithState = { method, url: path, data: options.body, headers, [STATE_KEY]: state };
    try {
      const response = await this.http.request(config);
      const common = {
        status: response.status,
        headers: toHeaderRecord(response.headers),
        attempts: state.attempts,
      };
      return response.status >= 200 && response.status < 300
        ? { ok: true, data: response.data as T, ...common }
        : { ok: false, data: response.data as unknown, ...common };
    } catch (error) {
      throw this.toClientError(error, state);
    }
  }

  private pickBaseURL(): string {
    const baseURL = this.baseURLs[this.nextBaseURL % this.baseURLs.length] as string;
    this.nextBaseURL = (this.nextBaseURL + 1) % this.baseURLs.length;
    return baseURL;
  }

  private isRetryable(error: AxiosError): boolean {
    if (error.response !== undefined) {
      return this.retryStatuses.has(error.response.status);
    }
    return error.code !== undefined && RETRYABLE_ERROR_CODES.has(error.code);
  }

  private shouldRetry(error: AxiosError): boolean {
    const state = stateOf(error.config);
    if (state === undefined || !this.isRetryable(error)) {
      return false;
    }
    const hint = retryAfterMs(toHeaderRecord(error.response?.headers)['retry-after']);
    const delayMs = backoffDelayMs(state.attempts, this.backoff, hint);
    // Never sleep past the deadline, nor start an attempt that has no time left to succeed.
    if (state.deadline - Date.now() - delayMs < this.minAttemptMs) {
      state.stoppedByDeadline = true;
      return false;
    }
    state.nextDelayMs = delayMs;
    return true;
  }

  private toClientError(error: unknown, state: CallState): unknown {
    if (!axios.isAxiosError(error)) {
      return error;
    }
    const response: UpstreamResponse | undefined =
      error.response === undefined
        ? undefined
        : {
            status: error.response.status,
            data: error.response.data as unknown,
            headers: toHeaderRecord(error.response.headers),
          };
    const context: HttpClientErrorContext = {
      method: state.method,
      path: state.path,
      attempts: state.attempts,
      response,
      cause: error,
    };
    const last = response === undefined ? (error.code ?? error.message) : `status ${response.status}`;
    const timedOut = error.code !== undefined && TIMEOUT_CODES.has(error.code);
    if (state.stoppedByDeadline || timedOut) {
      return new UpstreamTimeoutError(
        `${state.method} ${state.path}: no answer within the deadline after ${state.attempts} attempt(s) (last: ${last})`,
        context,
      );
    }
    return new UpstreamUnavailableError(
      `${state.method} ${state.path}: upstream unavailable after ${state.attempts} attempt(s) (last: ${last})`,
      context,
    );
  }

  private assertValid(
    method: HttpMethod,
    path: string,
    deadline: number,
    headers: Record<string, string>,
  ): void {
    const fail = (message: string): never => {
      throw new InvalidRequestError(`${method} ${path}: ${message}`, { method, path, attempts: 0 });
    };
    if (!Number.isFinite(deadline))
      fail(`deadline must be a finite epoch-ms number, got ${String(deadline)}`);
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || !SAFE_HEADER_VALUE.test(value)) {
        fail(`header ${name} has a value that cannot be sent unchanged (control characters or outer spaces)`);
      }
    }
  }
}
