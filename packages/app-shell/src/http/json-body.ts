import {
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
  type NestMiddleware,
} from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
// body-parser's JSON parser (what express.json is), run on the Node request as connect-style middleware: the
// platform's own parsing is off (see `createShellHttpAdapter`).
import express from 'express';
import { UnsupportedMediaTypeError } from './errors.js';
import { nodeRequestFrom } from './http-platform.js';

/** Options of {@link JsonBodyMiddleware}, provided as {@link JSON_BODY_OPTIONS}. */
export interface JsonBodyOptions {
  /** Largest body accepted, in bytes (`BODY_LIMIT_BYTES`); larger bodies get 413. */
  readonly limitBytes: number;
}

/** DI token of the {@link JsonBodyOptions}: the app provides it next to the middleware. */
export const JSON_BODY_OPTIONS = Symbol('JSON_BODY_OPTIONS');

// The request every hop of the chain sends: plain JSON, its length announced, nothing to decode.
const PLAIN_JSON = /^application\/json(?:\s*;\s*charset=(?:"utf-8"|utf-8))?$/i;
// What JSON.parse may see first besides a value: body-parser's strict mode takes only an object or an array.
const STRICT_FIRST = /^[ \t\n\r]*[[{]/;
const UTF8_BOM = 0xfeff;
// The media type of a Content-Type as type-is (Express' `req.is`) reads it: the text before any `;`, without the
// spaces and tabs around it, in lower case (the parameters are not read).
const MEDIA_TYPE = /^[ \t]*([^;]*?)[ \t]*(?:;|$)/;

/** A body-parser error of `type` (what the problem filter maps), made where the fast path refuses. */
function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

/**
 * Parses `application/json` bodies up to {@link JsonBodyOptions.limitBytes} (413 above). Register it as Nest
 * middleware after {@link RequestContextMiddleware} with the app's own body parser off, so rejected bodies get a
 * request id and a log line; body-parser's errors reach the exception filter. Other media types are left unparsed
 * for the route's {@link JsonContentTypeGuard} to refuse with 415.
 *
 * The calls between services (plain `application/json`, a `Content-Length` within the limit, no
 * `Content-Encoding`) are read here directly, with body-parser's strict rules and error types; everything else
 * (chunked bodies, charsets, encodings, other types) goes through body-parser, whose type checks, decoding and
 * reading cost more than the whole JSON.parse of a small body.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: ReturnType<typeof express.json>;
  private readonly limitBytes: number;

  constructor(@Inject(JSON_BODY_OPTIONS) options: JsonBodyOptions) {
    this.limitBytes = options.limitBytes;
    this.parse = express.json({ limit: options.limitBytes, strict: true, type: 'application/json' });
  }

  use(req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: (error?: unknown) => void): void {
    const length = Number(req.headers['content-length']);
    const type = req.headers['content-type'];
    const plain =
      type !== undefined &&
      PLAIN_JSON.test(type) &&
      req.headers['content-encoding'] === undefined &&
      req.headers['transfer-encoding'] === undefined &&
      Number.isSafeInteger(length) &&
      length > 0 &&
      length <= this.limitBytes;
    if (!plain) {
      this.parse(req as express.Request, res as express.Response, next);
      return;
    }
    // The stream's events come in the socket's async context, not the request's: the rest of the request must run
    // in the request's (its log context: the request id and trace ids on every line), as body-parser's does. One
    // resource entered once, not `AsyncResource.bind(next)`: bind defines two deprecated property accessors on the
    // bound function, which cost a hop more CPU than reading and parsing the body.
    const scope = new AsyncResource('retry-safe.JsonBody');
    const resume = (error?: unknown): void => {
      scope.runInAsyncScope(next, undefined, error);
    };
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      if (received !== length) {
        resume(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
        return;
      }
      let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.charCodeAt(0) === UTF8_BOM) text = text.slice(1);
      try {
        if (!STRICT_FIRST.test(text))
          throw new SyntaxError('Unexpected token: the body is not an object or array');
        req.body = JSON.parse(text) as unknown;
      } catch (error) {
        resume(bodyError(400, 'entity.parse.failed', (error as Error).message));
        return;
      }
      resume();
    };
    const onAborted = (): void => {
      cleanup();
      resume(bodyError(400, 'request.aborted', 'request aborted'));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onAborted);
  }
}

/** Refuses (415) a request whose body is not `application/json` (at the gateway it runs after authentication). */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = nodeRequestFrom(context);
    const type = req.headers['content-type'];
    // The chain's own calls match the plain form: one regular expression instead of type-is' parse of the header.
    if (type !== undefined && PLAIN_JSON.test(type)) return true;
    if (type === undefined || (hasBody(req) && !isJsonMediaType(type))) {
      throw new UnsupportedMediaTypeError(type);
    }
    return true;
  }
}

/** Whether the request announces a body (type-is' `hasBody`): a request without one has no media type to refuse. */
function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']))
  );
}

/** Whether `header` names `application/json`, with any parameters, as `req.is('application/json')` told it. */
function isJsonMediaType(header: string): boolean {
  return MEDIA_TYPE.exec(header)?.[1]?.toLowerCase() === 'application/json';
}
