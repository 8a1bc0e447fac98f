/** Media type of every error response (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The problem codes of any HTTP service here, business-free (the request's shape, not its meaning). */
export const RequestProblemCode = {
  IdempotencyKeyMissing: 'idempotency_key_missing',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  ValidationFailed: 'validation_failed',
  UnsupportedMediaType: 'unsupported_media_type',
  // No credential, or a wrong one: the gateway's bearer tokens, the internal services' `INTERNAL_TOKEN`.
  Unauthorized: 'unauthorized',
  PayloadTooLarge: 'payload_too_large',
  NotFound: 'not_found',
  InternalError: 'internal_error',
} as const;
/** One of {@link RequestProblemCode}'s values. */
export type RequestProblemCode = (typeof RequestProblemCode)[keyof typeof RequestProblemCode];

/** An RFC 9457 problem body, with the stable `code` clients switch on. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable, snake_case code for clients. */
  code: string;
}

/** Problem `type` URI for a code (a URN: these types are identifiers, not pages). */
export function problemType(code: string): string {
  return `urn:retry-safe:problem:${code}`;
}

/** Builds a problem from its parts. */
export function problem(status: number, code: string, title: string, detail: string): Problem {
  return { type: problemType(code), title, status, detail, code };
}

/** True for a parsed body that looks like one of our problems (it has a numeric status and a string code). */
export function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { status?: unknown }).status === 'number'
  );
}
