import { IdempotencyKeyRejection, parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import type { z } from 'zod';
import {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  ValidationFailedError,
} from '@retry-safe/app-shell';

/**
 * Longest accepted key. Stripe stops at 255; callers here send `<operation>.<client key>` (the client key alone may
 * be 255 characters), so the simulator is more generous rather than failing valid payments.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 512;

/**
 * Reads the `Idempotency-Key` header as the provider's API defines it: required, once, a bare key or an RFC 8941
 * sf-string (the chain's one parser), of 1-512 characters.
 * @param header - every field line of the header (`headerLinesOf` of the app shell), or the one value.
 * @throws {@link IdempotencyKeyMissingError} or {@link IdempotencyKeyInvalidError}.
 */
export function parseIdempotencyKey(header: string | readonly string[] | undefined): string {
  const parsed = parseIdempotencyKeyHeader(header, { maxLength: MAX_IDEMPOTENCY_KEY_LENGTH });
  if (parsed.ok) return parsed.key;
  if (parsed.rejection === IdempotencyKeyRejection.Missing) throw new IdempotencyKeyMissingError();
  throw new IdempotencyKeyInvalidError(parsed.reason);
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
