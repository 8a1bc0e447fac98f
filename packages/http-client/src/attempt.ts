import http from 'node:http';
import https from 'node:https';
import type { UpstreamResponse } from './http-client.errors.js';

/** What an attempt sends. */
export interface AttemptRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  /** The serialised JSON body, if any. */
  readonly body: string | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/** Codes an attempt fails with besides the socket's own (`ECONNRESET`, `ECONNREFUSED`...). */
export const AttemptCode = {
  /** No complete answer within the attempt's timeout. */
  TimedOut: 'ETIMEDOUT',
  /** The caller's signal fired. */
  Canceled: 'ERR_CANCELED',
  /** The answer was a 5xx (the response is attached). */
  BadResponse: 'ERR_BAD_RESPONSE',
} as const;

/**
 * Why an attempt produced no usable answer: a network error (the socket's code), a timeout, an abort, or a 5xx
 * answer (with its {@link AttemptFailure.response}). The `cause` of the error a failed call throws.
 */
export class AttemptFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly response?: UpstreamResponse,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AttemptFailure';
  }
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
 * One HTTP exchange on Node's global agent (keep-alive): resolves with any answer that came complete, rejects with
 * an {@link AttemptFailure} otherwise. The timeout bounds the whole attempt, from the request to the body's end.
 */
export function sendAttempt(request: AttemptRequest): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const { url, signal } = request;
    let settled = false;
    const onAbort = (): void => fail(new AttemptFailure(AttemptCode.Canceled, 'canceled'));
    const done = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const headers: Record<string, string> = {
      accept: 'application/json, text/plain, */*',
      ...request.headers,
    };
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(request.body));
    }
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: request.method, headers });
    function fail(failure: AttemptFailure): void {
      if (!done()) return;
      req.destroy();
      reject(failure);
    }
    // Timers run before the loop reads its sockets: after this process was busy past the timeout, the answer can
    // be waiting unread. Failing in the timer would resend a request that was answered, so the check runs in the
    // check phase, right after the poll phase has read it (a settled attempt ignores it).
    const timer = setTimeout(
      () =>
        setImmediate(() =>
          fail(new AttemptFailure(AttemptCode.TimedOut, `timeout of ${request.timeoutMs} ms exceeded`)),
        ),
      request.timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(new AttemptFailure(error.code ?? 'ECONNRESET', error.message, undefined, { cause: error })),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) =>
        fail(new AttemptFailure(error.code ?? 'ECONNRESET', error.message, undefined, { cause: error })),
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
