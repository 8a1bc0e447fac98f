/** Stable codes of the errors this package throws; check errors by `code` across package boundaries. */
export const HttpClientErrorCode = {
  /** Network errors or 5xx answers until the retries were spent (or a non-retryable 5xx). */
  UpstreamUnavailable: 'UPSTREAM_UNAVAILABLE',
  /** The deadline passed (or left too little time for another attempt), or the last attempt timed out. */
  UpstreamTimeout: 'UPSTREAM_TIMEOUT',
  /** Programmer error: bad client options, or a header value the HTTP stack would silently alter. */
  InvalidRequest: 'HTTP_CLIENT_INVALID_REQUEST',
  /** The call's `signal` aborted it (the caller of this hop went away); no retry follows. */
  RequestAborted: 'REQUEST_ABORTED',
} as const;
export type HttpClientErrorCode = (typeof HttpClientErrorCode)[keyof typeof HttpClientErrorCode];

/** A response from the service that was called, with header names in lower case. */
export interface UpstreamResponse<T = unknown> {
  status: number;
  data: T;
  headers: Record<string, string>;
}

/** Context every {@link HttpClientError} carries. */
export interface HttpClientErrorContext {
  /** HTTP method of the call. */
  method: string;
  /** Path of the call (relative to the base URL). */
  path: string;
  /** Attempts made (0 when the deadline had passed before the first). */
  attempts: number;
  /** The answer of the last attempt when it got one (a 5xx); pass it up unchanged where that is right. */
  response?: UpstreamResponse | undefined;
  /**
   * True when this failure must not be retried again further up the chain: this client retried it (or its retry
   * budget or the deadline refused a retry), or the answer carried `x-retry-exhausted`. A hop that passes the
   * failure up sends `x-retry-exhausted: true` with it.
   * @default false
   */
  retriesExhausted?: boolean;
  cause?: unknown;
}

/** Base class of this package's errors; each subclass names its `code`. */
export abstract class HttpClientError extends Error {
  abstract readonly code: HttpClientErrorCode;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  /** Status of the last attempt's answer, if it got one. */
  readonly lastStatus: number | undefined;
  readonly response: UpstreamResponse | undefined;
  /** See {@link HttpClientErrorContext.retriesExhausted}. */
  readonly retriesExhausted: boolean;

  constructor(message: string, context: HttpClientErrorContext) {
    super(message, { cause: context.cause });
    this.name = new.target.name;
    this.method = context.method;
    this.path = context.path;
    this.attempts = context.attempts;
    this.response = context.response;
    this.lastStatus = context.response?.status;
    this.retriesExhausted = context.retriesExhausted ?? false;
  }
}

/** `UPSTREAM_UNAVAILABLE`: the retries were spent on network errors or 5xx answers. */
export class UpstreamUnavailableError extends HttpClientError {
  readonly code = HttpClientErrorCode.UpstreamUnavailable;
}

/** `UPSTREAM_TIMEOUT`: the deadline passed before a usable answer arrived. */
export class UpstreamTimeoutError extends HttpClientError {
  readonly code = HttpClientErrorCode.UpstreamTimeout;
}

/** `HTTP_CLIENT_INVALID_REQUEST`: bad options or header values; never retried, never sent. */
export class InvalidRequestError extends HttpClientError {
  readonly code = HttpClientErrorCode.InvalidRequest;
}

/** `REQUEST_ABORTED`: the call's `signal` fired; whatever was in flight was abandoned, nothing is retried. */
export class RequestAbortedError extends HttpClientError {
  readonly code = HttpClientErrorCode.RequestAborted;
}

/** True for any error of this package (checked by `code`, so it works across copies of the package). */
export function isHttpClientError(error: unknown): error is HttpClientError {
  if (typeof error !== 'object' || error === null || !('code' in error)) {
    return false;
  }
  return (Object.values(HttpClientErrorCode) as unknown[]).includes((error as { code: unknown }).code);
}
