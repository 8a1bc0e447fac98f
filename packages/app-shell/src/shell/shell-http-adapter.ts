import { METHODS, type IncomingMessage, type RequestListener } from 'node:http';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/**
 * What every app is created with besides its adapter, by `main.ts` and by in-process tests alike: Nest's body
 * parser off (the shell parses JSON after the request context and authentication, see `AppShellModule`).
 * Connections are not force-closed on shutdown: `shutdown` drains them, so a running request is finished, not cut.
 */
export const SHELL_APP_OPTIONS = { bodyParser: false } as const;

// The methods Fastify reads a body for (its `bodywith` methods): declared without one, see createShellHttpAdapter.
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY'] as const;

// Node's default limit of a request's header section (`--max-http-header-size`), the request line included.
const MAX_PARAM_LENGTH = 16_384;

/**
 * The HTTP platform of every app: Nest on Fastify, set up so the shell answers as it always did.
 * - No body handling of Fastify's: every method is declared bodyless to it, so it neither parses a body nor judges
 *   its media type (it would answer its own 415 to a malformed `Content-Type`, even on an unknown path, and parse
 *   before authentication). The handler gets the body the shell's `JsonBodyMiddleware` read (after the request
 *   context and authentication, with its limit and its problems); any other media type stays unread for
 *   `JsonContentTypeGuard` to refuse with the shell's 415.
 * - The route template on the Node request (`req.route.path`, as Express kept it) once the route is about to run,
 *   for the access log, the metrics, the spans and the fault counters; an unmatched request has none.
 * - Routing as Express did it: paths are case-insensitive, a trailing slash matches the route without it, and a
 *   path parameter of any length reaches the route's validation (Fastify's router answers 414 above 100 characters;
 *   Node's header size limit bounds the URL anyway).
 * - Node's own answer to a request its parser refuses (a bare 400, 408 or 431), not Fastify's JSON one: an app
 *   that answers those itself (the gateway's problems) adds its `clientError` listener in `configureServer`.
 *
 * No ETag is computed (Fastify adds none), and no body limit of Fastify's applies (the middleware's does).
 */
export function createShellHttpAdapter(): FastifyAdapter {
  const adapter = new FastifyAdapter({
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
  });
  const fastify = adapter.getInstance();
  fastify.server.removeAllListeners('clientError');
  for (const method of BODY_METHODS) {
    if (METHODS.includes(method)) fastify.addHttpMethod(method, { hasBody: false, overrideExisting: true });
  }
  fastify.addHook('preHandler', (request, _reply, done) => {
    const raw = request.raw as IncomingMessage & { body?: unknown; route?: { path: string } };
    request.body = raw.body;
    if (!request.is404 && request.routeOptions.url !== undefined)
      raw.route = { path: request.routeOptions.url };
    done();
  });
  return adapter;
}

/**
 * The platform of an app, as `createTestApp` of `@retry-safe/testing/nest` takes it: the same as `bootstrap` builds
 * for `main.ts`.
 */
export function shellPlatform(): { httpAdapter: FastifyAdapter; appOptions: typeof SHELL_APP_OPTIONS } {
  return { httpAdapter: createShellHttpAdapter(), appOptions: SHELL_APP_OPTIONS };
}

/**
 * A Node request listener answering with the app's routes, middleware and filter, for a listener of the app's own
 * beside its port (the admin listener): Fastify's request handler (`routing`), which its own server calls. Call it
 * once the app is initialised: it boots Fastify (`ready`), which adds the routes; a request that arrives before
 * waits for them rather than meeting an empty router.
 */
export function requestListenerOf(adapter: AbstractHttpAdapter): RequestListener {
  const fastify = adapter.getInstance<{ routing: RequestListener; ready(): PromiseLike<unknown> }>();
  let booted = false;
  // A boot that fails fails the app's own listen too, which exits: the waiting requests go with the process.
  const boot = Promise.resolve(fastify.ready()).then(() => {
    booted = true;
  });
  boot.catch(() => undefined);
  return (req, res) => {
    if (booted) fastify.routing(req, res);
    else
      boot.then(
        () => fastify.routing(req, res),
        () => res.destroy(),
      );
  };
}
