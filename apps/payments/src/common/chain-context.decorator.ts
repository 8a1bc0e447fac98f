import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { chainContextOf, type ChainContext } from './request-context.middleware.js';

/** The request's {@link ChainContext}: its id and deadline, for the next hop. */
export const Chain = createParamDecorator((_data: unknown, context: ExecutionContext): ChainContext => {
  const chain = chainContextOf(context.switchToHttp().getRequest<Request>());
  if (chain === undefined) throw new Error('RequestContextMiddleware did not run');
  return chain;
});
