import { setTimeout as sleep } from 'node:timers/promises';
import { context, trace } from '@opentelemetry/api';
import { AttemptCode, AttemptFailure, sendAttempt } from './attempt.js';
import { backoffDelayMs } from './backoff.js';
import { CallState } from './call-state.js';
import { RETRYABLE_ERROR_CODES, markedExhausted, toClientError } from './failures.js';
import { DEFAULT_MIN_ATTEMPT_MS } from './defaults.js';
import { DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './headers.js';
import {
  InvalidRequestError,
  RequestAbortedError,
  UpstreamTimeoutError,
  type UpstreamResponse,
} from './http-client.errors.js';
import { RetryBudget } from './retry-budget.js';
import { abortedNow, assertSendable, hostOf, joinURL, safely } from './request-checks.js';
import {
  clientTracing,
  endCallSpan,
  recordRetry,
  startCallSpan,
  tracedAttempt,
  type ClientTracing,
} from './tracing.js';
import type {
  CallOptions,
  HttpMethod,
  RequestOptions,
  RetryInfo,
  ServiceClient,
  ServiceClientOptions,
  ServiceResponse,
} from './service-client.options.js';

/** Creates a {@link ServiceClient} (Node's `http` on its keep-alive global agent, retries of its own). */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  return new NodeServiceClient(options);
}

/**
 * Retries network errors, timeouts and `retryStatuses` answers with backoff inside the deadline and the budget,
 * each attempt with its own timeout and deadline header. Written on `node:http` rather than axios: on the chain's
 * hot path axios' per-call configuration merging, header objects and interceptors cost more CPU than the hop's
 * own HTTP work (`pnpm bench:http`, docs/benchmarks.md).
 */
class NodeServiceClient implements ServiceClient {
  private readonly baseURLs: readonly string[];
  private readonly retries: number;
  private readonly retryStatuses: ReadonlySet<number>;
  private readonly attemptTimeoutMs: number;
  private readonly defaultBudgetMs: number;
  private readonly minAttemptMs: number;
  private readonly marginMs: number | undefined;
  private readonly budget: RetryBudget | undefined;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number; random: () => number };
  private nextBaseURL = 0;
  private readonly tracing: ClientTracing;

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
    this.tracing = clientTracing(
      options.tracer ?? trace.getTracer('@retry-safe/http-client'),
      options.name ?? hostOf(baseURLs[0] as string),
    );
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

    this.retries = options.retries ?? 3;
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
    assertSendable(method, path, deadline, headers);

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
    state.span = startCallSpan(this.tracing, state, parent);
    state.traceContext = trace.setSpan(parent, state.span);
    try {
      const response = await this.attempts<T>(state, path, headers, options);
      endCallSpan(state.span, state, { status: response.status });
      return response;
    } catch (error) {
      endCallSpan(state.span, state, { error });
      throw error;
    }
  }

  /** The attempts of one call and the backoffs between them, until an answer or an error to throw. */
  private async attempts<T>(
    state: CallState,
    path: string,
    headers: Record<string, string>,
    options: RequestOptions,
  ): Promise<ServiceResponse<T>> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const isRetryable = (failure: AttemptFailure) => this.isRetryable(failure);
    for (;;) {
      // An abort during a backoff ends the call before the next attempt is sent: that one is not an attempt.
      if (abortedNow(options.signal)) {
        throw toClientError(
          new AttemptFailure(AttemptCode.Canceled, 'canceled'),
          state,
          options.signal,
          isRetryable,
        );
      }
      const outcome = await this.attempt(state, path, headers, body, options.signal);
      if (!(outcome instanceof AttemptFailure)) {
        const common = { status: outcome.status, headers: outcome.headers, attempts: state.attempts };
        return outcome.status >= 200 && outcome.status < 300
          ? { ok: true, data: outcome.data as T, ...common }
          : { ok: false, data: outcome.data, ...common };
      }
      const retry =
        outcome.code !== AttemptCode.Canceled &&
        state.attempts - 1 < this.retries &&
        this.shouldRetry(outcome, state);
      if (!retry) throw toClientError(outcome, state, options.signal, isRetryable);
      this.reportRetry(outcome, state);
      await sleep(state.nextDelayMs, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }

  /** One attempt: its answer below 500, or why it failed (a 5xx answer is a failure with its response). */
  private async attempt(
    state: CallState,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<UpstreamResponse | AttemptFailure> {
    const { baseURL, timeoutMs, sentDeadline } = this.prepareAttempt(state);
    try {
      const url = joinURL(baseURL, path);
      const sent = { ...headers, [DEADLINE_HEADER]: String(sentDeadline) };
      const response = await tracedAttempt(this.tracing, state, url, sent, () =>
        sendAttempt({ url, method: state.method, headers: sent, body, timeoutMs, signal }),
      );
      if (response.status < 500) return response;
      return new AttemptFailure(
        AttemptCode.BadResponse,
        `Request failed with status code ${response.status}`,
        response,
      );
    } catch (error) {
      if (error instanceof AttemptFailure) return error;
      throw error;
    }
  }

  private reportRetry(failure: AttemptFailure, state: CallState): void {
    const info: RetryInfo = {
      retry: state.attempts,
      attempt: state.attempts,
      method: state.method,
      path: state.path,
      delayMs: state.nextDelayMs,
      status: failure.response?.status,
      errorCode: failure.code,
      idempotencyKey: state.idempotencyKey,
      requestId: state.requestId,
    };
    safely(() => recordRetry(state.span, info));
    const onRetry = this.options.onRetry;
    if (onRetry !== undefined) safely(() => onRetry(info));
  }

  private prepareAttempt(state: CallState): { baseURL: string; timeoutMs: number; sentDeadline: number } {
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
    return { baseURL, timeoutMs, sentDeadline };
  }

  private pickBaseURL(): string {
    const baseURL = this.baseURLs[this.nextBaseURL % this.baseURLs.length] as string;
    this.nextBaseURL = (this.nextBaseURL + 1) % this.baseURLs.length;
    return baseURL;
  }

  private isRetryable(failure: AttemptFailure): boolean {
    if (failure.response !== undefined) {
      return this.retryStatuses.has(failure.response.status);
    }
    return RETRYABLE_ERROR_CODES.has(failure.code);
  }

  private shouldRetry(failure: AttemptFailure, state: CallState): boolean {
    if (!this.isRetryable(failure)) {
      return false;
    }
    // The hop below already retried this failure: retrying it here too would multiply the calls.
    if (markedExhausted(failure)) {
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
}
