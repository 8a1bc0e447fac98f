import type { IncomingMessage } from 'node:http';
import {
  UnauthorizedError,
  bearerTokenOf,
  type CallerAuthenticator,
  type RequestContext,
} from '@retry-safe/app-shell/http';
import type { ApiTokens } from './api-tokens.js';

/**
 * Authenticates `Authorization: Bearer <token>` against `API_TOKENS` and records the caller's tenant. The shell
 * runs it before anything reads the request (the body, the idempotency key), so an unauthenticated caller learns
 * nothing but 401, whatever it sent (`{bad`, a body over the limit).
 */
export class ApiTokenAuthenticator implements CallerAuthenticator {
  constructor(private readonly tokens: ApiTokens) {}

  authenticate(req: IncomingMessage, context: RequestContext): void {
    const token = bearerTokenOf(req.headers.authorization);
    if (token === undefined)
      throw new UnauthorizedError('A bearer token is required: Authorization: Bearer <token>');
    const tenantId = this.tokens.tenantOf(token);
    if (tenantId === undefined) throw new UnauthorizedError('The bearer token is not valid');
    context.tenantId = tenantId;
  }
}
