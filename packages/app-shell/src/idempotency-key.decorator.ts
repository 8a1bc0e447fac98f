import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ChainHeader } from '@retry-safe/contracts/http';
import { IdempotencyKeyRejection, parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import type { Request } from 'express';
import { IdempotencyKeyInvalidError, IdempotencyKeyMissingError } from './errors.js';
import { headerLinesOf } from './header-lines.js';

/** Options of {@link createIdempotencyKeyDecorator}. */
export interface IdempotencyKeyDecoratorOptions {
  /** The detail of the 400 `idempotency_key_missing`. @default `'The Idempotency-Key header is required'` */
  readonly missingMessage?: string;
}

/**
 * A parameter decorator giving the request's `Idempotency-Key`, decoded and validated by the one parser of the
 * chain (`parseIdempotencyKeyHeader` of `@retry-safe/idempotency`); 400 `idempotency_key_missing` or
 * `idempotency_key_invalid` otherwise. Reads every field line of the header, so a repeated header is refused
 * rather than merged.
 */
export function createIdempotencyKeyDecorator(
  options: IdempotencyKeyDecoratorOptions = {},
): () => ParameterDecorator {
  return createParamDecorator((_data: unknown, context: ExecutionContext): string => {
    const req = context.switchToHttp().getRequest<Request>();
    const parsed = parseIdempotencyKeyHeader(headerLinesOf(req, ChainHeader.IdempotencyKey));
    if (parsed.ok) return parsed.key;
    if (parsed.rejection === IdempotencyKeyRejection.Missing) {
      throw new IdempotencyKeyMissingError(options.missingMessage);
    }
    throw new IdempotencyKeyInvalidError(parsed.reason);
  });
}

/** {@link createIdempotencyKeyDecorator} with the default messages: `@IdempotencyKey() key: string`. */
export const IdempotencyKey = createIdempotencyKeyDecorator();
