import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { requestContextOf } from '@retry-safe/app-shell';
import { UnauthorizedError } from '../common/gateway-errors.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config.js';
import { bearerTokenOf } from './api-tokens.js';

/** The tenant {@link ApiTokenGuard} authenticated for `req`. */
export function tenantOf(req: Request): string | undefined {
  return requestContextOf(req)?.tenantId;
}

/**
 * Authenticates `Authorization: Bearer <token>` against `API_TOKENS` and records the caller's tenant. It runs
 * before anything reads the request (the idempotency key, the body), so an unauthenticated caller learns nothing
 * but 401.
 */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerTokenOf(req.headers.authorization);
    if (token === undefined)
      throw new UnauthorizedError('A bearer token is required: Authorization: Bearer <token>');
    const tenantId = this.config.apiTokens.tenantOf(token);
    if (tenantId === undefined) throw new UnauthorizedError('The bearer token is not valid');
    const requestContext = requestContextOf(req);
    if (requestContext === undefined) throw new Error('RequestContextMiddleware did not run');
    requestContext.tenantId = tenantId;
    return true;
  }
}
