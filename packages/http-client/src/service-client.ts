import { context, trace } from '@opentelemetry/api';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import axiosRetry from 'axios-retry';
import { serviceAdapter, type AttemptPlan } from './axios-adapter.js';
import { CallState, STATE_KEY, type ConfigWithState } from './call-state.js';
import { toClientError } from './failures.js';
import { DEFAULT_MIN_ATTEMPT_MS } from './defaults.js';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './headers.js';
import { InvalidRequestError, RequestAbortedError, UpstreamTimeoutError } from './http-client.errors.js';
import { RetryBudget } from './retry-budget.js';
import { axiosRetryConfig, markedExhausted } from './retry-policy.js';
import { assertSendable, hostOf, safely } from './request-checks.js';
import { keepAliveAgents, targetOf, type Target } from './target.js';
import { clientTracing, endCallSpan, startCallSpan, type ClientTracing } from './tracing.js';
import type {
  CallOptions,
  HttpMethod,
  RequestOptions,
  ServiceClient,
  ServiceClientOptions,
  ServiceResponse,
} from './service-client.options.js';

// Sent on every attempt unless a call says otherwise (axios' own default `Accept`).
const BASE_HEADERS = { accept: 'application/json, text/plain, */*' } as const;
const JSON_HEADERS = { ...BASE_HEADERS, 'content-type': 'application/json' } as const;

// The instance defaults this client's requests use; axios merges every key of the defaults into the config of
// every attempt (`mergeConfig`), so the others go.
const DEFAULTS_USED: ReadonlySet<string> = new Set([
  'adapter',
  'httpAgent',
  'httpsAgent',
  'validateStatus',
  'maxRedirects',
  'proxy',
  'transformRequest',
  'transformResponse',
]);

/**
 * Trims an instance's defaults to {@link DEFAULTS_USED}, once: axios' global ones (XSRF names, size limits, `env`,
 * `transitional`) serve adapters this client does not use, and its header buckets (`common`, one per method) would
 * be merged and flattened on every attempt for headers the adapter does not read (it sends the call's record).
 */
function leanDefaults(instance: AxiosInstance): void {
  const defaults = instance.defaults as unknown as Record<string, unknown>;
  for (const key of Object.keys(defaults)) if (!DEFAULTS_USED.has(key)) delete defaults[key];
  instance.defaults.headers = {} as AxiosInstance['defaults']['headers'];
}

/** Creates a {@link ServiceClient}: one axios instance with axios-retry, built once. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  return new AxiosServiceClient(options);
}

/**
 * One axios instance per service called, built once with its keep-alive agent, its adapter and axios-retry
 * (`axiosRetryConfig`): axios-retry retries network errors, timeouts and `retryStatuses` answers with backoff
 * inside the deadline and the budget, each attempt with its own timeout and deadline header; a `POST` only with
 * an `Idempotency-Key`. No interceptor of its own: what changes per attempt is done by the adapter
 * (`serviceAdapter`), which axios calls once per attempt.
 */
class AxiosServiceClient implements ServiceClient {
  private readonly http: AxiosInstance;
  private readonly targets: readonly Target[];
  private readonly attemptTimeoutMs: number;
  private readonly defaultBudgetMs: number;
  private readonly minAttemptMs: number;
  private readonly marginMs: number | undefined;
  private readonly budget: RetryBudget | undefined;
  private readonly tracing: ClientTracing;
  /** The client's headers merged with the base ones, once: without a body, and with one (`content-type`). */
  private readonly headers: { readonly bare: Record<string, string>; readonly json: Record<string, string> };
  private nextTarget = 0;

  constructor(private readonly options: ServiceClientOptions) {
    const baseURLs = options.baseURLs ?? (options.baseURL === undefined ? [] : [options.baseURL]);
    if (baseURLs.length === 0) {
      throw new InvalidRequestError('createServiceClient needs baseURL or baseURLs', {
        method: '-',
        path: '-',
        attempts: 0,
      });
    }
    const agents = keepAliveAgents();
    this.targets = baseURLs.map((baseURL) => {
      try {
        return targetOf(baseURL, agents);
      } catch (error) {
        throw new InvalidRequestError(`createServiceClient: ${String((error as Error).message)}`, {
          method: '-',
          path: '-',
          attempts: 0,
          cause: error,
        });
      }
    });
    this.tracing = clientTracing(
      options.tracer ?? trace.getTracer('@retry-safe/http-client'),
      options.name ?? hostOf(baseURLs[0] as string),
    );
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
    this.defaultBudgetMs = options.defaultBudgetMs ?? 10_000;
    this.minAttemptMs = options.minAttemptMs ?? DEFAULT_MIN_ATTEMPT_MS;
    this.marginMs = options.attemptDeadlineMarginMs;
    this.budget = options.retryBudget === false ? undefined : new RetryBudget(options.retryBudget);
    this.headers = {
      bare: { ...BASE_HEADERS, ...options.headers },
      json: { ...JSON_HEADERS, ...options.headers },
    };
    this.http = axios.create({
      adapter: serviceAdapter(this.tracing, (state) => this.planAttempt(state)),
      httpAgent: agents.http,
      httpsAgent: agents.https,
      // 2xx-4xx resolve (4xx passes up unchanged); 5xx rejects so that axios-retry sees it.
      validateStatus: (status) => status < 500,
      maxRedirects: 0,
      // Hops are service to service: no proxy, and no proxy variables read from the environment.
      proxy: false,
      // The body is serialised once per call and the answer parsed by the adapter: nothing to transform per attempt.
      transformRequest: [],
      transformResponse: [],
    });
    leanDefaults(this.http);
    axiosRetry(
      this.http,
      axiosRetryConfig({
        retries: options.retries ?? 3,
        retryStatuses: new Set(options.retryStatuses ?? [502, 503, 504]),
        minAttemptMs: this.minAttemptMs,
        budget: this.budget,
        backoff: {
          baseDelayMs: options.baseDelayMs ?? 50,
          maxDelayMs: options.maxDelayMs ?? 1000,
          random: options.random ?? Math.random,
        },
        onRetry: options.onRetry,
      }),
    );
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
    const state = this.callState(method, path, options);
    this.budget?.deposit();
    const parent = context.active();
    state.span = startCallSpan(this.tracing, state, parent);
    state.traceContext = trace.setSpan(parent, state.span);
    const config: ConfigWithState = { method, url: path, signal: options.signal, [STATE_KEY]: state };
    try {
      const response: AxiosResponse = await this.http.request(config);
      endCallSpan(state.span, state, { status: response.status });
      const common = {
        status: response.status,
        headers: state.lastResponse?.headers ?? {},
        attempts: state.attempts,
      };
      return response.status >= 200 && response.status < 300
        ? { ok: true, data: response.data as T, ...common }
        : { ok: false, data: response.data as unknown, ...common };
    } catch (error) {
      const failure = toClientError(error, state, options.signal, markedExhausted(state));
      endCallSpan(state.span, state, { error: failure });
      throw failure;
    }
  }

  /** A call's state, after the checks that refuse it before any attempt. */
  private callState(method: HttpMethod, path: string, options: RequestOptions): CallState {
    const now = Date.now();
    const deadline = options.deadline ?? now + this.defaultBudgetMs;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const base = body === undefined ? this.headers.bare : this.headers.json;
    const headers: Record<string, string> =
      options.headers === undefined ? { ...base } : { ...base, ...options.headers };
    if (options.idempotencyKey !== undefined && options.idempotencyKeyPerAttempt === undefined) {
      headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey;
    }
    if (options.requestId !== undefined) headers[REQUEST_ID_HEADER] = options.requestId;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    assertSendable(method, path, deadline, headers);
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
    const perAttempt = options.idempotencyKeyPerAttempt;
    const key = perAttempt === undefined ? options.idempotencyKey : undefined;
    return new CallState(method, path, deadline, key, options.requestId, headers, body, perAttempt);
  }

  /** Starts an attempt (the adapter's first step): its number, base URL, timeout and sent deadline. */
  private planAttempt(state: CallState): AttemptPlan {
    state.attempts += 1;
    if (state.keyPerAttempt !== undefined) state.attemptKey = state.keyPerAttempt(state.attempts);
    const now = Date.now();
    const remaining = state.deadline - now;
    const timeoutMs = Math.max(1, Math.min(this.attemptTimeoutMs, remaining));
    // The next hop must be done before this attempt times out, with the margin left for its answer to travel.
    const sentDeadline =
      this.marginMs === undefined
        ? state.deadline
        : Math.min(state.deadline, now + timeoutMs) - this.marginMs;
    const target = this.pickTarget();
    const onAttempt = this.options.onAttempt;
    if (onAttempt !== undefined) {
      safely(() =>
        onAttempt({
          attempt: state.attempts,
          method: state.method,
          path: state.path,
          baseURL: target.baseURL,
          timeoutMs,
          remainingMs: Math.max(0, remaining),
          deadline: state.deadline,
          sentDeadline,
          idempotencyKey: state.attemptKey,
          requestId: state.requestId,
        }),
      );
    }
    return { target, timeoutMs, sentDeadline };
  }

  private pickTarget(): Target {
    const target = this.targets[this.nextTarget] as Target;
    this.nextTarget = (this.nextTarget + 1) % this.targets.length;
    return target;
  }
}
