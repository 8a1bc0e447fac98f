import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@retry-safe/http-client';
import type { NextFunction, Request, Response } from 'express';
import { RequestJournal, preciseNow } from '../admin/request-journal.service.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** What the gateway knows about a request, for logs and downstream calls. */
export interface RequestContext {
  /** Minted here for every request and sent down the chain as `x-request-id`. */
  readonly requestId: string;
  /** Set by the auth guard. */
  tenantId?: string;
}

const contexts = new WeakMap<Request, RequestContext>();

/** The context {@link RequestContextMiddleware} attached to `req`. */
export function requestContextOf(req: Request): RequestContext | undefined {
  return contexts.get(req);
}

/** The request id of `req` (for logs and problem bodies). */
export function requestIdOf(req: Request): string | undefined {
  return contexts.get(req)?.requestId;
}

/**
 * Gives every request a new id (the edge of the chain mints it; a caller's own `x-request-id` is only logged, as
 * `clientRequestId`), echoes it, and on close writes one JSON access-log line and the request metrics. It listens
 * to `close`, not `finish`, so a request whose socket is destroyed without an answer (a `drop` fault) is still
 * counted, as status `aborted`. Runs before body parsing, so 413 and malformed bodies are logged too.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly logger = new Logger('http');

  constructor(
    private readonly metrics: MetricsService,
    private readonly journal: RequestJournal,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const context: RequestContext = { requestId: randomUUID() };
    contexts.set(req, context);
    res.setHeader(REQUEST_ID_HEADER, context.requestId);
    const clientRequestId = req.headers[REQUEST_ID_HEADER];
    const started = process.hrtime.bigint();
    const startedAt = preciseNow();
    // The answer's last byte left at `finish`; `close` can come later (the journal orders answers across services).
    let finishedAt: number | undefined;
    res.once('finish', () => {
      finishedAt = preciseNow();
    });
    res.once('close', () => {
      // `req.route` is set once the router matched; unmatched paths share one label to bound cardinality.
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.httpRequests.inc({ method: req.method, route, status });
      this.metrics.httpDuration.observe({ method: req.method, route }, seconds);
      this.logger.log({
        msg: 'request',
        service: 'gateway',
        requestId: context.requestId,
        ...(typeof clientRequestId === 'string' ? { clientRequestId: clientRequestId.slice(0, 128) } : {}),
        tenantId: context.tenantId,
        method: req.method,
        path: req.originalUrl,
        route,
        status,
        replayed: res.getHeader('idempotent-replayed') === 'true',
        durationMs: Math.round(seconds * 1000),
      });
      if (
        this.journal.enabled &&
        route !== '/health' &&
        route !== '/metrics' &&
        !req.originalUrl.startsWith('/__')
      ) {
        const key = req.headers['idempotency-key'];
        this.journal.record({
          service: 'gateway',
          requestId: context.requestId,
          method: req.method,
          route,
          path: req.originalUrl,
          ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
          startedAt,
          endedAt: finishedAt ?? preciseNow(),
          status: status === 'aborted' ? status : res.statusCode,
          replayed: res.getHeader('idempotent-replayed') === 'true',
        });
      }
    });
    next();
  }
}
