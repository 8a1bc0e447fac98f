// The request's own checks, and small helpers of the client.
import { InvalidRequestError } from './http-client.errors.js';
import type { HttpMethod } from './service-client.options.js';

// What an HTTP stack would strip or trim from a header value: an idempotency key must never be altered silently.
const SAFE_HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

/** Runs a caller's hook; its failure never changes the outcome of a call. */
export function safely(hook: () => void): void {
  try {
    hook();
  } catch {
    // Hooks feed metrics and recordings; they must not change the outcome of a call.
  }
}

/** `payments.internal` for `http://payments.internal:3002`; the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** Refuses a request that could not be sent as given, before any attempt. */
export function assertSendable(
  method: HttpMethod,
  path: string,
  deadline: number,
  headers: Record<string, string>,
): void {
  const fail = (message: string): never => {
    throw new InvalidRequestError(`${method} ${path}: ${message}`, { method, path, attempts: 0 });
  };
  if (!Number.isFinite(deadline)) fail(`deadline must be a finite epoch-ms number, got ${String(deadline)}`);
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string' || !SAFE_HEADER_VALUE.test(value)) {
      fail(`header ${name} has a value that cannot be sent unchanged (control characters or outer spaces)`);
    }
  }
}
