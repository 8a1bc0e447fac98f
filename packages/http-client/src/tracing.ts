import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AttemptCode, AttemptFailure } from './attempt.js';
import type { CallState } from './call-state.js';
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
  if (error instanceof AttemptFailure) {
    if (error.response !== undefined) return outcomeOfStatus(error.response.status);
    if (error.code === AttemptCode.Canceled) return AttemptOutcome.Aborted;
    if (error.code === AttemptCode.TimedOut) return AttemptOutcome.Timeout;
  }
  return AttemptOutcome.NetworkError;
}

/** Starts the span of one call (every attempt and backoff of it), under the caller's active span. */
export function startCallSpan(tracer: Tracer, upstream: string, state: CallState, parent: Context): Span {
  return tracer.startSpan(
    `call ${upstream}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [HttpClientSpanAttribute.Upstream]: upstream,
        'http.request.method': state.method,
        'url.path': state.path,
      },
    },
    parent,
  );
}

/** Ends the call span with what the call came to: the final answer's status, or the error it threw. */
export function endCallSpan(
  span: Span,
  state: CallState,
  result: { status: number } | { error: unknown },
): void {
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
  span?.addEvent('retry', {
    [HttpClientSpanAttribute.Attempt]: info.attempt,
    [HttpClientSpanAttribute.DelayMs]: info.delayMs,
    ...(info.status === undefined ? {} : { 'http.response.status_code': info.status }),
    ...(info.errorCode === undefined ? {} : { 'error.type': info.errorCode }),
  });
}

/**
 * Runs one attempt (`send`) inside its own span, a child of the call span: the HTTP client span of the
 * instrumentation, and so the next hop's server span, sit under it. The span says which attempt it is and what
 * it came to ({@link AttemptOutcome}); the answer or error passes through unchanged.
 */
export async function tracedAttempt(
  tracer: Tracer,
  upstream: string,
  state: CallState,
  url: URL,
  send: () => Promise<UpstreamResponse>,
): Promise<UpstreamResponse> {
  const parent = state.traceContext;
  if (parent === undefined) return send();
  const span = tracer.startSpan(
    `attempt ${upstream}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [HttpClientSpanAttribute.Upstream]: upstream,
        [HttpClientSpanAttribute.Attempt]: state.attempts,
        ...(state.attempts > 1 ? { 'http.request.resend_count': state.attempts - 1 } : {}),
        'http.request.method': state.method,
        'url.full': url.href,
      },
    },
    parent,
  );
  try {
    // The request is made in the attempt span's context: the HTTP instrumentation's client span is its child.
    const response = await context.with(trace.setSpan(parent, span), send);
    span.setAttribute('http.response.status_code', response.status);
    span.setAttribute(HttpClientSpanAttribute.Outcome, outcomeOfStatus(response.status));
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
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
