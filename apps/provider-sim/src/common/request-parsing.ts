import type { z } from 'zod';
import {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  ValidationFailedError,
} from './provider-errors.js';

/**
 * Longest accepted key. Stripe stops at 255; callers here send `<operation>.<client key>` (the client key alone may
 * be 255 characters), so the simulator is more generous rather than failing valid payments.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

/**
 * Reads the `Idempotency-Key` header as the provider's API defines it: required, 1-512 printable ASCII characters.
 * @throws {@link IdempotencyKeyMissingError} or {@link IdempotencyKeyInvalidError}.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined) throw new IdempotencyKeyMissingError();
  if (Array.isArray(header)) throw new IdempotencyKeyInvalidError('the header is repeated');
  const key = header.trim();
  if (key.length === 0) throw new IdempotencyKeyInvalidError('the key is blank');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new IdempotencyKeyInvalidError(`the key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  if (!/^[\x20-\x7e]+$/.test(key)) throw new IdempotencyKeyInvalidError('the key is not printable ASCII');
  return key;
}

/**
 * Parses a request body with a zod schema.
 * @throws {@link ValidationFailedError} with one line per issue.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new ValidationFailedError(
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    { cause: parsed.error },
  );
}
