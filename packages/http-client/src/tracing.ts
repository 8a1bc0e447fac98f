import {
  SpanKind,
  SpanStatusCode,
  propagation,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { isAxiosError } from 'axios';
import { AttemptCode } from './attempt.js';
import type { CallState } from './call-state.js';
import type { Target } from './target.js';
import type { UpstreamResponse } from './http-client.errors.js';
import type { RetryInfo } from './service-client.options.js';

/** The attributes the client sets on its spans (besides OpenTelemetry's own `http.*` ones). */
export const HttpClientSpanAttribute = {
  /** The service called (`ServiceClientOptions.name`). */
  Upstream: 'retry_safe.upstream',
  /** The attempt span's number: 1 for the first. */
  Attempt: 'retry_safe.attempt',
  /** On the call span: attempts made. */
  Attempts: 'retry_safe.attempts',
  /** What an attempt, or the whole call, came to: one of {@link AttemptOutcome}, or the call's error code. */
  Outcome: 'retry_safe.outcome',
  /** Why a retryable failure was not retried: `deadline`, `budget`, `exhausted-below`. */
  StoppedBy: 'retry_safe.stopped_by',
  /** On a `retry` event: the backoff before the next attempt. */
  DelayMs: 'retry_safe.delay_ms',
} as const;

/** What one attempt came to. */
export const AttemptOutcome = {
  /** 2xx or 3xx. */
  Ok: 'ok',
  /** 4xx: passed up unchanged, never retried. */
  ClientError: 'client_error',
  /** 5xx (retried when it is 502/503/504 and not marked `x-retry-exhausted`). */
  ServerError: 'server_error',
  /** The attempt's timeout ran out. */
  Timeout: 'timeout',
  /** No answer: refused, reset, unreachable. */
  NetworkError: 'network_error',
  /** The caller aborted the call. */
  Aborted: 'aborted',
} as const;

/** One of {@link AttemptOutcome}'s values. */
export type AttemptOutcome = (typeof AttemptOutcome)[keyof typeof AttemptOutcome];

function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 500) return AttemptOutcome.ServerError;
  return status >= 400 ? AttemptOutcome.ClientError : AttemptOutcome.Ok;
}

/** The outcome of an attempt that failed without an answer: a timeout, an abort or a network error. */
function outcomeOfFailure(error: unknown): AttemptOutcome {
  if (isAxiosError(error)) {
    if (error.code === AttemptCode.Canceled) return AttemptOutcome.Aborted;
    if (error.code === AttemptCode.TimedOut) return AttemptOutcome.Timeout;
  }
  return AttemptOutcome.NetworkError;
}

/** What a client's spans are made with: its tracer, the service it calls, and the span names (built once). */
export interface ClientTracing {
  readonly tracer: Tracer;
  readonly upstream: string;
  readonly callName: string;
  readonly attemptName: string;
}

/** The {@link ClientTracing} of a client of `upstream`. */
export function clientTracing(tracer: Tracer, upstream: string): ClientTracing {
  return { tracer, upstream, callName: `call ${upstream}`, attemptName: `attempt ${upstream}` };
}

/**
 * Starts the span of one call (every attempt and backoff of it), under the caller's active span; an unsampled one
 * builds no attributes.
 */
export function startCallSpan(tracing: ClientTracing, state: CallState, parent: Context): Span {
  const span = tracing.tracer.startSpan(tracing.callName, { kind: SpanKind.INTERNAL }, parent);
  if (span.isRecording()) {
    span.setAttributes({
      [HttpClientSpanAttribute.Upstream]: tracing.upstream,
      'http.request.method': state.method,
      'url.path': state.path,
    });
  }
  return span;
}

/** Ends the call span with what the call came to: the final answer's status, or the error it threw. */
export function endCallSpan(
  span: Span,
  state: CallState,
  result: { status: number } | { error: unknown },
): void {
  if (!span.isRecording()) {
    span.end();
    return;
  }
  span.setAttribute(HttpClientSpanAttribute.Attempts, state.attempts);
  if (state.stoppedBy !== undefined) span.setAttribute(HttpClientSpanAttribute.StoppedBy, state.stoppedBy);
  if ('status' in result) {
    span.setAttribute('http.response.status_code', result.status);
    span.setAttribute(HttpClientSpanAttribute.Outcome, outcomeOfStatus(result.status));
  } else {
    const code = (result.error as { code?: unknown }).code;
    span.setAttribute(HttpClientSpanAttribute.Outcome, typeof code === 'string' ? code : 'error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: String((result.error as Error).message) });
  }
  span.end();
}

/** Records on the call span that a failed attempt will be retried, and after which backoff. */
export function recordRetry(span: Span | undefined, info: RetryInfo): void {
  if (span?.isRecording() !== true) return;
  span.addEvent('retry', {
    [HttpClientSpanAttribute.Attempt]: info.attempt,
    [HttpClientSpanAttribute.DelayMs]: info.delayMs,
    ...(info.status === undefined ? {} : { 'http.response.status_code': info.status }),
    ...(info.errorCode === undefined ? {} : { 'error.type': info.errorCode }),
  });
}

/**
 * Runs one attempt (`send`) as its own span, a child of the call span: the attempt span is the HTTP client span
 * (kind CLIENT, OpenTelemetry's HTTP client attributes), and `headers` get its `traceparent` through the
 * propagation API, so the next hop's server span is its child. (The HTTP instrumentation's outgoing side is off in
 * the services: a second client span per request would only repeat this one.) It says which attempt it is and
 * what it came to ({@link AttemptOutcome}); the answer or error passes through unchanged. An unsampled attempt
 * builds no attributes; its context still propagates (the next hop follows the decision).
 */
export async function tracedAttempt(
  tracing: ClientTracing,
  state: CallState,
  target: Target,
  path: string,
  headers: Record<string, string>,
  send: () => Promise<UpstreamResponse>,
): Promise<UpstreamResponse> {
  const parent = state.traceContext;
  if (parent === undefined) return send();
  const span = tracing.tracer.startSpan(tracing.attemptName, { kind: SpanKind.CLIENT }, parent);
  propagation.inject(trace.setSpan(parent, span), headers);
  if (!span.isRecording()) return send();
  span.setAttributes({
    [HttpClientSpanAttribute.Upstream]: tracing.upstream,
    [HttpClientSpanAttribute.Attempt]: state.attempts,
    ...(state.attempts > 1 ? { 'http.request.resend_count': state.attempts - 1 } : {}),
    'http.request.method': state.method,
    'url.full': `${target.origin}${path}`,
    'server.address': target.hostname,
    'server.port': target.port,
  });
  try {
    const response = await send();
    span.setAttribute('http.response.status_code', response.status);
    span.setAttribute(HttpClientSpanAttribute.Outcome, outcomeOfStatus(response.status));
    // An HTTP client span is an error from 400 on (OpenTelemetry's HTTP conventions); the outcome tells them apart.
    if (response.status >= 400) {
      span.setAttribute('error.type', String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  } catch (error) {
    span.setAttribute(HttpClientSpanAttribute.Outcome, outcomeOfFailure(error));
    span.setAttribute('error.type', (error as { code?: string }).code ?? 'error');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
