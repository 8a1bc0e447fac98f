import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import { DEADLINE_HEADER, REQUEST_ID_HEADER, parseDeadline } from '@retry-safe/http-client';
import type { NextFunction, Request, Response } from 'express';
import { RequestJournal, preciseNow } from '../admin/request-journal.service.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { MetricsService } from '../metrics/metrics.service.js';

// What a request id from upstream may look like; anything else is replaced (it ends up in logs).
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// A caller cannot stretch a hop's retries further than this, whatever deadline it sends.
const MAX_BUDGET_MS = 60_000;

/** Where a request sits in the call chain: what the next hop's call must carry. */
export interface ChainContext {
  /** The caller's `x-request-id` (the gateway mints one per client request), or a new one. */
  readonly requestId: string;
  /** Epoch ms by which the whole chain must answer (`x-request-deadline`, else now + `REQUEST_BUDGET_MS`). */
  readonly deadline: number;
}

const contexts = new WeakMap<Request, ChainContext>();

/** The context {@link RequestContextMiddleware} attached to `req`. */
export function chainContextOf(req: Request): ChainContext | undefined {
  return contexts.get(req);
}

/** The request id of `req` (for logs). */
export function requestIdOf(req: Request): string | undefined {
  return contexts.get(req)?.requestId;
}

/**
 * Takes the caller's `x-request-id` and `x-request-deadline` (or starts both here), echoes the id, and on
 * close writes one JSON access-log line and the request metrics. It listens to `close`, not `finish`, so a request
 * whose socket is destroyed without an answer (a `drop` fault) is still counted, as status `aborted`.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly logger = new Logger('http');

  constructor(
    private readonly metrics: MetricsService,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly journal: RequestJournal,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const deadline = parseDeadline(
      req.headers[DEADLINE_HEADER],
      Date.now(),
      this.config.requestBudgetMs,
      MAX_BUDGET_MS,
    );
    contexts.set(req, { requestId, deadline });
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
      this.logger.log({
        msg: 'request',
        service: 'orders',
        requestId,
        tenantId: req.headers['x-tenant-id'],
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
          service: 'orders',
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
