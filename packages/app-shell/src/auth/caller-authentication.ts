import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, NotFoundException, Optional, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_LISTENER_OPTIONS, arrivedOnAdminListener } from '../admin/admin-listener.js';
import { UnauthorizedError } from '../http/errors.js';
import { requestContextOf, type RequestContext } from '../http/request-context.js';
import { originalUrlOf } from '../http/http-platform.js';

/**
 * Who may call an app: runs on every request before its body is parsed (so an unauthenticated caller gets 401
 * whatever it sent, and nothing is read or done). The gateway's checks bearer tokens and records the tenant; an
 * internal service's checks `INTERNAL_TOKEN` ({@link InternalTokenAuthenticator}).
 */
export interface CallerAuthenticator {
  /**
   * Accepts the request (and may record who called, e.g. `context.tenantId`) or refuses it.
   * @throws {@link UnauthorizedError} when the caller is not authenticated.
   */
  authenticate(req: IncomingMessage, context: RequestContext): void;
}

/** DI token of the app's {@link CallerAuthenticator}. */
export const CALLER_AUTHENTICATOR = Symbol('CALLER_AUTHENTICATOR');

// Probes, metrics and the scenario routes (mounted only with FAULTS_ENABLED) need no caller credential.
const OPEN_PATHS = /^\/(?:health(?:\/.*)?|metrics|__faults(?:\/.*)?|__config|__requests)$/;

/** DI token of the `ADMIN_TOKEN` every `/__*` route demands (`undefined`: none, the routes are loopback-only). */
export const ADMIN_TOKEN = Symbol('ADMIN_TOKEN');

/** True for the scenario and admin routes (`/__faults`, `/__config`, `/__requests`, ...). */
export function isAdminPath(path: string): boolean {
  return path.startsWith('/__');
}

/** True for the paths {@link CallerAuthenticationMiddleware} lets through without a caller credential. */
export function isOpenPath(path: string): boolean {
  return OPEN_PATHS.test(path);
}

/**
 * Runs the app's {@link CallerAuthenticator} after the request context (a refused request is logged and counted)
 * and before the JSON body parser. A refusal is thrown, so the shell's exception filter answers the 401 problem.
 * With an admin listener (`ADMIN_PORT`), a `/__*` path on the app's port, or any other path on the admin port, is
 * the 404 of a route that does not exist there: the public listener never serves a scenario route.
 */
@Injectable()
export class CallerAuthenticationMiddleware implements NestMiddleware {
  private readonly admin: InternalTokenAuthenticator | undefined;

  constructor(
    @Inject(CALLER_AUTHENTICATOR) private readonly authenticator: CallerAuthenticator,
    @Inject(ADMIN_TOKEN) adminToken: string | undefined,
    @Optional() @Inject(ADMIN_LISTENER_OPTIONS) private readonly adminListener?: object,
  ) {
    this.admin =
      adminToken === undefined ? undefined : new InternalTokenAuthenticator(adminToken, 'ADMIN_TOKEN');
  }

  use(req: IncomingMessage, _res: ServerResponse, next: (error?: unknown) => void): void {
    const path = originalUrlOf(req).split('?', 1)[0] ?? '';
    if (this.adminListener !== undefined && isAdminPath(path) !== arrivedOnAdminListener(req)) {
      // Nest's own words for an unknown route: the public port does not reveal that an admin listener exists.
      throw new NotFoundException(`Cannot ${req.method ?? 'GET'} ${path}`);
    }
    // With ADMIN_TOKEN set (a service reachable off loopback), the routes that switch faults and idempotency
    // demand it, whatever the path's case of the rest.
    if (this.admin !== undefined && isAdminPath(path)) this.admin.authenticate(req);
    else if (!isOpenPath(path)) {
      const context = requestContextOf(req);
      if (context === undefined) throw new Error('RequestContextMiddleware did not run');
      this.authenticator.authenticate(req, context);
    }
    next();
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header value, or `undefined` when the header is missing or uses
 * another scheme. The scheme is case-insensitive (RFC 9110); the token is an RFC 6750 b64token.
 */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  return match?.[1];
}

/** SHA-256 of a secret: equal-length digests for {@link timingSafeEqual}, whatever the lengths of the secrets. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * Internal services (orders, payments) accept business calls only from the chain's own callers: the gateway and
 * orders send `Authorization: Bearer <INTERNAL_TOKEN>`. The comparison is constant-time over SHA-256 digests, so
 * neither a token's length nor a shared prefix shows in the timing. The tenant a caller sends is trusted only
 * because the caller is.
 */
export class InternalTokenAuthenticator implements CallerAuthenticator {
  private readonly expected: Buffer;

  /** @param variable - the variable the token comes from, named in the 401's detail. */
  constructor(
    token: string,
    private readonly variable = 'INTERNAL_TOKEN',
  ) {
    this.expected = secretDigest(token);
  }

  authenticate(req: IncomingMessage): void {
    const token = bearerTokenOf(req.headers.authorization);
    if (token === undefined)
      throw new UnauthorizedError(`A credential is required: Authorization: Bearer <${this.variable}>`);
    if (!timingSafeEqual(secretDigest(token), this.expected))
      throw new UnauthorizedError(`The credential is not valid (${this.variable})`);
  }
}

/** The header a hop sends to an internal service ({@link InternalTokenAuthenticator}). */
export function internalAuthorization(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
