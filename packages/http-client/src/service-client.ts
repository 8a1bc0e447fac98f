import { context, trace, type Tracer } from '@opentelemetry/api';
import axios, {
  type AxiosError,
  type AxiosHeaders,
  type AxiosInstance,
  type AxiosRequestConfig,
} from 'axios';
import axiosRetry from 'axios-retry';
import { backoffDelayMs } from './backoff.js';
import { CallState, STATE_KEY, stateOf, type ConfigWithState } from './call-state.js';
import { RETRYABLE_ERROR_CODES, markedExhausted, toClientError, toHeaderRecord } from './failures.js';
import { DEFAULT_MIN_ATTEMPT_MS } from './defaults.js';
import { DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './headers.js';
import { InvalidRequestError, RequestAbortedError, UpstreamTimeoutError } from './http-client.errors.js';
import { RetryBudget } from './retry-budget.js';
import { endCallSpan, recordRetry, startCallSpan, tracedAttempt } from './tracing.js';
import type {
  CallOptions,
  HttpMethod,
  RequestOptions,
  RetryInfo,
  ServiceClient,
  ServiceClientOptions,
  ServiceResponse,
} from './service-client.options.js';

// Every attempt goes through it, retries included: wrapped so that each one runs in its own span.
const httpAdapter = axios.getAdapter('http');

// What axios would strip or trim from a header value: an idempotency key must never be altered silently.
const SAFE_HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

function safely(hook: () => void): void {
  try {
    hook();
  } catch {
    // Hooks feed metrics and recordings; they must not change the outcome of a call.
  }
}

/** `payments.internal` for `http://payments.internal:3002`; the URL itself when it does not parse. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
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
  private readonly marginMs: number | undefined;
  private readonly budget: RetryBudget | undefined;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number; random: () => number };
  private nextBaseURL = 0;
  private readonly tracer: Tracer;
  private readonly upstream: string;

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
    this.tracer = options.tracer ?? trace.getTracer('@retry-safe/http-client');
    this.upstream = options.name ?? hostOf(baseURLs[0] as string);
    this.retryStatuses = new Set(options.retryStatuses ?? [502, 503, 504]);
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
    this.defaultBudgetMs = options.defaultBudgetMs ?? 10_000;
    this.minAttemptMs = options.minAttemptMs ?? DEFAULT_MIN_ATTEMPT_MS;
    this.marginMs = options.attemptDeadlineMarginMs;
    this.budget = options.retryBudget === false ? undefined : new RetryBudget(options.retryBudget);
    this.backoff = {
      baseDelayMs: options.baseDelayMs ?? 50,
      maxDelayMs: options.maxDelayMs ?? 1000,
      random: options.random ?? Math.random,
    };

    this.http = axios.create({
      // 2xx-4xx resolve (4xx passes up unchanged); 5xx rejects so that axios-retry sees it.
      validateStatus: (status) => status < 500,
      maxRedirects: 0,
      // Hops are service to service: no proxy, and no proxy variables read from the environment on every call.
      proxy: false,
      // Timeouts become ETIMEDOUT instead of ECONNABORTED (which axios-retry's defaults never retry).
      transitional: { silentJSONParsing: true, forcedJSONParsing: true, clarifyTimeoutError: true },
      adapter: (config) => {
        const state = stateOf(config);
        if (state === undefined) return httpAdapter(config);
        return tracedAttempt(this.tracer, this.upstream, state, config.baseURL, (attempt) =>
          context.with(attempt, () => httpAdapter(config)),
        );
      },
    });
    // Runs before every attempt, retries included: axios-retry re-enters the instance with the same config.
    this.http.interceptors.request.use((config) => {
      const state = stateOf(config);
      // An attempt that an abort (during a backoff) cancels before it is sent is not one.
      if (state !== undefined && config.signal?.aborted !== true) this.prepareAttempt(config, state);
      return config;
    });
    this.installRetries(options.retries ?? 3);
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
    if (options.signal?.aborted === true) {
      throw new RequestAbortedError(`${method} ${path}: aborted before the first attempt`, {
        method,
        path,
        attempts: 0,
      });
    }
    if (deadline - now < this.minAttemptMs) {
      throw new UpstreamTimeoutError(
        `${method} ${path}: less than ${this.minAttemptMs} ms left before the deadline, no attempt made`,
        { method, path, attempts: 0 },
      );
    }
    this.budget?.deposit();

    const parent = context.active();
    state.span = startCallSpan(this.tracer, this.upstream, state, parent);
    state.traceContext = trace.setSpan(parent, state.span);
    const config: ConfigWithState = {
      method,
      url: path,
      data: options.body,
      headers,
      signal: options.signal,
      [STATE_KEY]: state,
    };
    try {
      const response = await this.http.request(config);
      const common = {
        status: response.status,
        headers: toHeaderRecord(response.headers),
        attempts: state.attempts,
      };
      endCallSpan(state.span, state, { status: response.status });
      return response.status >= 200 && response.status < 300
        ? { ok: true, data: response.data as T, ...common }
        : { ok: false, data: response.data as unknown, ...common };
    } catch (error) {
      const failure = toClientError(error, state, options.signal, (cause) => this.isRetryable(cause));
      endCallSpan(state.span, state, { error: failure });
      throw failure;
    }
  }

  private installRetries(retries: number): void {
    axiosRetry(this.http, {
      retries,
      // Each attempt gets its own timeout (set above from the deadline), not a share of one overall timeout.
      shouldResetTimeout: true,
      retryCondition: (error) => this.shouldRetry(error),
      retryDelay: (_retryCount, error) => stateOf(error.config)?.nextDelayMs ?? 0,
      onRetry: (retryCount, error, config) => {
        const state = stateOf(config);
        if (state === undefined) return;
        const info: RetryInfo = {
          retry: retryCount,
          attempt: state.attempts,
          method: state.method,
          path: state.path,
          delayMs: state.nextDelayMs,
          status: error.response?.status,
          errorCode: error.code,
          idempotencyKey: state.idempotencyKey,
          requestId: state.requestId,
        };
        safely(() => recordRetry(state.span, info));
        const onRetry = this.options.onRetry;
        if (onRetry !== undefined) safely(() => onRetry(info));
      },
    });
  }

  private prepareAttempt(config: AxiosRequestConfig & { headers: AxiosHeaders }, state: CallState): void {
    state.attempts += 1;
    const now = Date.now();
    const remaining = state.deadline - now;
    const timeoutMs = Math.max(1, Math.min(this.attemptTimeoutMs, remaining));
    // The next hop must be done before this attempt times out, with the margin left for its answer to travel.
    const sentDeadline =
      this.marginMs === undefined
        ? state.deadline
        : Math.min(state.deadline, now + timeoutMs) - this.marginMs;
    const baseURL = this.pickBaseURL();
    config.baseURL = baseURL;
    config.timeout = timeoutMs;
    config.headers.set(DEADLINE_HEADER, String(sentDeadline));
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
          sentDeadline,
          idempotencyKey: state.idempotencyKey,
          requestId: state.requestId,
        }),
      );
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
    // The hop below already retried this failure: retrying it here too would multiply the calls.
    if (markedExhausted(error)) {
      state.stoppedBy = 'exhausted-below';
      return false;
    }
    // No Retry-After hint: a hop's retries are short; the hint goes up with the answer, for the end client.
    const delayMs = backoffDelayMs(state.attempts, this.backoff);
    // Never sleep past the deadline, nor start an attempt that has no time left to succeed.
    if (state.deadline - Date.now() - delayMs < this.minAttemptMs) {
      state.stoppedBy = 'deadline';
      return false;
    }
    // Checked last, so a retry that would not run anyway costs no token.
    if (this.budget !== undefined && !this.budget.tryWithdraw()) {
      state.stoppedBy = 'budget';
      return false;
    }
    state.nextDelayMs = delayMs;
    return true;
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
