import {
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
  type NestMiddleware,
} from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { UnsupportedMediaTypeError } from './errors.js';

/** Options of {@link JsonBodyMiddleware}, provided as {@link JSON_BODY_OPTIONS}. */
export interface JsonBodyOptions {
  /** Largest body accepted, in bytes (`BODY_LIMIT_BYTES`); larger bodies get 413. */
  readonly limitBytes: number;
}

/** DI token of the {@link JsonBodyOptions}: the app provides it next to the middleware. */
export const JSON_BODY_OPTIONS = Symbol('JSON_BODY_OPTIONS');

/**
 * Parses `application/json` bodies up to {@link JsonBodyOptions.limitBytes} (413 above). Register it as Nest
 * middleware after {@link RequestContextMiddleware} with the app's own body parser off, so rejected bodies get a
 * request id and a log line; body-parser's errors reach the exception filter. Other media types are left unparsed
 * for the route's {@link JsonContentTypeGuard} to refuse with 415.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: ReturnType<typeof express.json>;

  constructor(@Inject(JSON_BODY_OPTIONS) options: JsonBodyOptions) {
    this.parse = express.json({ limit: options.limitBytes, strict: true, type: 'application/json' });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.parse(req, res, next);
  }
}

/** Refuses (415) a request whose body is not `application/json` (at the gateway it runs after authentication). */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.is('application/json') === false || req.headers['content-type'] === undefined) {
      throw new UnsupportedMediaTypeError(req.headers['content-type']);
    }
    return true;
  }
}
