import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config.js';

/**
 * Parses `application/json` bodies up to `GATEWAY_BODY_LIMIT_BYTES` (413 above). Registered as Nest middleware after
 * {@link RequestContextMiddleware} (the app's own body parser is off), so rejected bodies get a request id and a
 * log line; body-parser's errors reach the exception filter. Other media types are left unparsed for the route's
 * guard to refuse with 415.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: ReturnType<typeof express.json>;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.parse = express.json({ limit: config.bodyLimitBytes, strict: true, type: 'application/json' });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.parse(req, res, next);
  }
}
