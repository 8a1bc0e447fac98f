import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { IdempotencyKeyInvalidError, IdempotencyKeyMissingError } from '../common/payments-errors.js';
import { IdempotencyKeyRejection, parseIdempotencyKeyHeader } from './idempotency-key.js';

/**
 * The request's `Idempotency-Key`, decoded and validated (see {@link parseIdempotencyKeyHeader}); 400
 * `idempotency_key_missing` or `idempotency_key_invalid` otherwise. Reads every field line of the header, so a
 * repeated header is refused rather than merged.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const req = context.switchToHttp().getRequest<Request>();
  const parsed = parseIdempotencyKeyHeader(req.headersDistinct['idempotency-key']);
  if (parsed.ok) return parsed.key;
  if (parsed.rejection === IdempotencyKeyRejection.Missing) throw new IdempotencyKeyMissingError();
  throw new IdempotencyKeyInvalidError(parsed.reason);
});
