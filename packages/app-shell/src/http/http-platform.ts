import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionContext } from '@nestjs/common';

/**
 * A request as the shell's code receives it: Fastify's request (guards, handlers, the exception filter; its Node
 * request is `raw`) or the Node request itself (Nest middleware on Fastify, which runs in `@fastify/middie`).
 */
export type HttpRequest = IncomingMessage | { readonly raw: IncomingMessage };

/**
 * What a `@Res({ passthrough: true })` handler sets on its answer: the status and headers. Fastify's reply has both
 * (`status` is its `code`), so does Express' response: a controller typed with it runs on either.
 */
export interface HttpReply {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
  /** Fastify's reply has its Node response here; Express' response is the Node response itself. */
  readonly raw?: ServerResponse;
}

/** The Node response of a handler's reply, e.g. to tell when the caller left (`signalWhenCallerLeaves`). */
export function nodeResponseOf(res: HttpReply): ServerResponse {
  return res.raw ?? (res as unknown as ServerResponse);
}

/** The Node request of `req`: per-request state (context, the admin mark) is kept on it, as middleware sees it. */
export function nodeRequestOf(req: HttpRequest): IncomingMessage {
  return 'raw' in req ? req.raw : req;
}

/** The Node request of an HTTP execution context (a guard's, an interceptor's, a parameter decorator's). */
export function nodeRequestFrom(context: ExecutionContext): IncomingMessage {
  return nodeRequestOf(context.switchToHttp().getRequest<HttpRequest>());
}

/**
 * The path a request was sent to, with its query (`req.url` before any middleware stripped a mount path from it):
 * `@fastify/middie` keeps it as `originalUrl`, as Express does.
 */
export function originalUrlOf(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
}

/**
 * The route template the router matched (`/v1/orders/:orderId`), or `undefined` for a request no route matched. On
 * the Node request as Express keeps it (`req.route.path`), which the shell's Fastify adapter sets before the handler
 * runs (see `createShellHttpAdapter`), so the access log, the metrics, the spans and the fault counters label by it.
 */
export function routeTemplateOf(req: IncomingMessage): string | undefined {
  const path = (req as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' ? path : undefined;
}

/** A Fastify reply as the exception filter sees one (`raw` is its Node response). */
interface ProblemReplyTarget {
  readonly raw: ServerResponse;
  status(code: number): unknown;
  header(name: string, value: string): unknown;
  type(mediaType: string): unknown;
  send(body: string): unknown;
}

/** What {@link sendAnswer} sends. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON media type, e.g. `application/problem+json`: it goes out with `; charset=utf-8`. */
  readonly mediaType: string;
  /** The serialized body. */
  readonly body: string;
}

/**
 * Sends a finished answer on what an exception filter got: Fastify's reply for an error of a route or a hook, or
 * the Node response for one a middleware threw (Nest hands middleware the raw objects on Fastify; an Express
 * response is one too). Nothing is sent once an answer started or the socket is gone.
 */
export function sendAnswer(res: ServerResponse | ProblemReplyTarget, answer: Answer): void {
  const { status, headers, mediaType, body } = answer;
  if ('raw' in res) {
    if (res.raw.headersSent || res.raw.destroyed) return;
    res.status(status);
    for (const [name, value] of Object.entries(headers)) res.header(name, value);
    // Fastify adds the charset to a JSON media type sent as a string.
    res.type(mediaType);
    res.send(body);
    return;
  }
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', `${mediaType}; charset=utf-8`);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
