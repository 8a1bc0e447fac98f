import { ValidationFailedError } from '@retry-safe/app-shell/http';
import { idempotencyKeyFromHeader } from '@retry-safe/idempotency/nest';
import type { z } from 'zod';

/**
 * Longest accepted key. Stripe stops at 255; callers here send `<operation>.<client key>` (the client key alone may
 * be 255 characters), so the simulator is more generous rather than failing valid payments.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

/**
 * Reads the `Idempotency-Key` header as the provider's API defines it: required, once, a bare key or an RFC 8941
 * sf-string (the chain's one parser, through the library's one reader), of 1-512 characters.
 * @param header - every field line of the header (`headerLinesOf` of the app shell), or the one value.
 * @throws the library's `IdempotencyKeyMissingError` or `InvalidIdempotencyKeyError` (400
 * `idempotency_key_missing` or `idempotency_key_invalid`, answered by the shell's filter).
 */
export function parseIdempotencyKey(header: string | readonly string[] | undefined): string {
  return idempotencyKeyFromHeader(header, { maxLength: MAX_IDEMPOTENCY_KEY_LENGTH });
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
