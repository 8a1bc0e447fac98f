import http from 'node:http';
import https from 'node:https';
import { AxiosError, CanceledError } from 'axios';
import type { UpstreamResponse } from './http-client.errors.js';
import type { Target } from './target.js';

/** What an attempt sends. */
export interface AttemptRequest {
  readonly target: Target;
  /** The request path on the target (with its query, if any). */
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  /** The serialised JSON body, if any. */
  readonly body: string | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/** Codes an attempt fails with besides the socket's own (`ECONNRESET`, `ECONNREFUSED`...): axios' own codes. */
export const AttemptCode = {
  /** No complete answer within the attempt's timeout (axios' code with `clarifyTimeoutError`). */
  TimedOut: AxiosError.ETIMEDOUT,
  /** The caller's signal fired. */
  Canceled: AxiosError.ERR_CANCELED,
  /** The answer was a 5xx (the response is attached). */
  BadResponse: AxiosError.ERR_BAD_RESPONSE,
} as const;

/** Why an attempt failed without an answer: the axios error axios-retry reads (`code`, and the socket's cause). */
function failure(code: string, message: string, cause?: unknown): AxiosError {
  const error = code === AttemptCode.Canceled ? new CanceledError(message) : new AxiosError(message, code);
  if (cause instanceof Error) error.cause = cause;
  return error;
}

/** Response headers as a plain record, names in lower case (repeated ones joined with `, `). */
export function headerRecord(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A body as JSON when it parses, else as the text it is ('' for none): a proxy's HTML 502 stays readable. */
function bodyOf(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One HTTP exchange on the target's keep-alive agent: resolves with any answer that came complete (5xx included;
 * the adapter settles it), rejects with an `AxiosError` otherwise (the socket's code, `ETIMEDOUT`, or a
 * `CanceledError`). The timeout bounds the whole attempt, from the request to the body's end.
 */
export function sendAttempt(request: AttemptRequest): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const { target, signal } = request;
    let settled = false;
    const onAbort = (): void => fail(failure(AttemptCode.Canceled, 'canceled'));
    const done = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const req = (target.protocol === 'https:' ? https : http).request({
      protocol: target.protocol,
      host: target.host,
      port: target.port,
      path: request.path,
      method: request.method,
      headers: request.headers,
      agent: target.agent,
    });
    function fail(error: AxiosError): void {
      if (!done()) return;
      req.destroy();
      reject(error);
    }
    // Timers run before the loop reads its sockets: after this process was busy past the timeout, the answer can
    // be waiting unread. Failing in the timer would resend a request that was answered, so the check runs in the
    // check phase, right after the poll phase has read it (a settled attempt ignores it).
    const timer = setTimeout(
      () =>
        setImmediate(() =>
          fail(failure(AttemptCode.TimedOut, `timeout of ${request.timeoutMs} ms exceeded`)),
        ),
      request.timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(failure(error.code ?? 'ECONNRESET', error.message, error)),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) =>
        fail(failure(error.code ?? 'ECONNRESET', error.message, error)),
      );
      res.on('end', () => {
        if (!done()) return;
        const text =
          chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: headerRecord(res.headers), data: bodyOf(text) });
      });
    });
    req.end(request.body);
  });
}
