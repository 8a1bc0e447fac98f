import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RequestJournal, preciseNow } from '../admin/request-journal.service.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** Header that carries the request id in and out (callers pass theirs down the chain). */
export const REQUEST_ID_HEADER = 'x-request-id';

const requestIds = new WeakMap<Request, string>();

/** The request id {@link RequestContextMiddleware} assigned to `req` (for logs and problem bodies). */
export function requestIdOf(req: Request): string | undefined {
  return requestIds.get(req);
}

/**
 * Gives every request an id (the caller's `x-request-id`, or a new UUID), echoes it, and on close writes one JSON
 * access-log line and the request metrics. It listens to `close`, not `finish`, so requests whose socket is
 * destroyed without an answer (a `drop` fault) are still counted, as status `aborted`.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly logger = new Logger('http');

  constructor(
    private readonly metrics: MetricsService,
    private readonly journal: RequestJournal,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const requestId =
      typeof incoming === 'string' && incoming.length > 0 ? incoming.slice(0, 200) : randomUUID();
    requestIds.set(req, requestId);
    res.setHeader(REQUEST_ID_HEADER, requestId);
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
      this.logger.log('request', {
        requestId,
        method: req.method,
        path: req.originalUrl,
        route,
        status,
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
          service: 'provider',
          requestId,
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
