import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { IDEMPOTENCY_KEY_HEADER } from '@retry-safe/http-client';
import type { Request } from 'express';
import { IdempotencyKeyInvalidError, IdempotencyKeyMissingError } from '@retry-safe/app-shell';

/**
 * The `Idempotency-Key` header exactly as it came, to pass on unchanged: orders does not interpret the key (it
 * holds no state to protect), payments does. Missing: 400 `idempotency_key_missing`; repeated: 400
 * `idempotency_key_invalid`.
 */
export const ForwardedIdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string => {
    const values = context.switchToHttp().getRequest<Request>().headersDistinct[IDEMPOTENCY_KEY_HEADER];
    if (values === undefined || values.length === 0) throw new IdempotencyKeyMissingError();
    if (values.length > 1)
      throw new IdempotencyKeyInvalidError('the Idempotency-Key header must appear once');
    const [value] = values;
    if (value === undefined || value.length === 0) throw new IdempotencyKeyInvalidError('key is empty');
    return value;
  },
);
