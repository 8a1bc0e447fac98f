import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ChainHeader } from '@retry-safe/contracts/http';
import { idempotencyKeyFromHeader } from '@retry-safe/idempotency/nest';
import { headerLinesOf } from './header-lines.js';
import { nodeRequestFrom } from './http-platform.js';

/**
 * A parameter decorator giving the request's `Idempotency-Key`, read by the library's one reader
 * (`idempotencyKeyFromHeader` of `@retry-safe/idempotency/nest`, over the chain's one parser): 400
 * `idempotency_key_missing` or `idempotency_key_invalid` otherwise (the library's errors, which the shell's filter
 * answers through the library's mapping). Reads every field line of the header, so a repeated header is refused
 * rather than merged: `@IdempotencyKey() key: string`.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  idempotencyKeyFromHeader(headerLinesOf(nodeRequestFrom(context), ChainHeader.IdempotencyKey)),
);
