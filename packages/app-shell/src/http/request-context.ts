import { randomUUID } from 'node:crypto';
import { context as traceContext } from '@opentelemetry/api';
import {
  Inject,
  Injectable,
  Logger,
  createParamDecorator,
  type ExecutionContext,
  type NestMiddleware,
} from '@nestjs/common';
import { ChainHeader } from '@retry-safe/contracts/http';
import { idempotencyKeyDigest } from '@retry-safe/contracts';
import { parseDeadline } from '@retry-safe/http-client';
import { parseIdempotencyKeyHeader } from '@retry-safe/idempotency';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpMetrics } from '../telemetry/metrics.js';
import { RequestJournal, preciseNow } from '../admin/request-journal.js';
import { withLogContext } from '../logging/log-context.js';
import { headerLinesOf } from './header-lines.js';
import {
  nodeRequestFrom,
  nodeRequestOf,
  originalUrlOf,
  routeTemplateOf,
  type HttpRequest,
} from './http-platform.js';

// What a request id from upstream may look like; anything else is replaced (it ends up in logs).
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// A caller cannot stretch a hop's retries further than this, whatever deadline it sends.
const MAX_BUDGET_MS = 60_000;

/** What a service knows about a request, for logs and downstream calls. */
export interface RequestContext {
  /** `x-request-id`: minted at the edge, taken from the caller further down the chain. */
  readonly requestId: string;
  /** Epoch ms by which the whole chain must answer; set only when the service propagates deadlines. */
  readonly deadline?: number;
  /** The caller's tenant, once known (the gateway's auth guard sets it). */
  tenantId?: string;
}

/** Where a request sits in the call chain: what the next hop's call must carry. */
export interface ChainContext {
  /** The caller's `x-request-id` (the gateway mints one per client request), or a new one. */
  readonly requestId: string;
  /** Epoch ms by which the whole chain must answer (`x-request-deadline`, else now + the request budget). */
  readonly deadline: number;
}

/** Options of {@link RequestContextMiddleware}, provided as {@link REQUEST_CONTEXT_OPTIONS}. */
export interface RequestContextOptions {
  /** The `service` of the journal entries (and, through the shell's logger, of every log line). */
  readonly service: string;
  /**
   * `mint`: the edge of the chain, a new id for every request (a caller's own `x-request-id` is only logged, as
   * `clientRequestId`). `propagate`: the caller's id when well-formed, else a new one.
   */
  readonly requestId: 'mint' | 'propagate';
  /**
   * The deadline of a request that arrives without `x-request-deadline` (`REQUEST_BUDGET_MS`); when set, the
   * middleware reads (or starts) the deadline and {@link Chain} gives it to the handlers. Unset: no deadline.
   */
  readonly requestBudgetMs?: number;
  /** The `tenantId` of the access-log line. Unset: the line has no `tenantId` field. */
  readonly tenantOf?: (req: IncomingMessage, context: RequestContext) => unknown;
}

/** DI token of the {@link RequestContextOptions}: the app provides it next to the middleware. */
export const REQUEST_CONTEXT_OPTIONS = Symbol('REQUEST_CONTEXT_OPTIONS');

// Keyed by the Node request: the middleware gets it, a handler's Fastify request has it as `raw`.
const contexts = new WeakMap<IncomingMessage, RequestContext>();

/** The context {@link RequestContextMiddleware} attached to `req`. */
export function requestContextOf(req: HttpRequest): RequestContext | undefined {
  return contexts.get(nodeRequestOf(req));
}

/** The request's chain context, when the middleware propagates deadlines. */
export function chainContextOf(req: HttpRequest): ChainContext | undefined {
  const context = contexts.get(nodeRequestOf(req));
  if (context?.deadline === undefined) return undefined;
  return { requestId: context.requestId, deadline: context.deadline };
}

/** The request id of `req` (for logs and problem bodies). */
export function requestIdOf(req: HttpRequest): string | undefined {
  return contexts.get(nodeRequestOf(req))?.requestId;
}

/** The request's {@link ChainContext}: its id and deadline, for the next hop. */
export const Chain = createParamDecorator((_data: unknown, context: ExecutionContext): ChainContext => {
  const chain = chainContextOf(nodeRequestFrom(context));
  if (chain === undefined) throw new Error('RequestContextMiddleware did not run');
  return chain;
});

/**
 * Gives every request its id (see {@link RequestContextOptions.requestId}) and, if configured, its deadline; echoes
 * the id; runs the rest of the request in a log context, so every line written for it carries `requestId`; and on
 * close writes one JSON access-log line, the request metrics and a journal entry. It listens to
 * `close`, not `finish`, so a request whose socket is destroyed without an answer (a `drop` fault) is still
 * counted, as status `aborted`. Apply it before body parsing, so 413 and malformed bodies are logged too.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly logger = new Logger('http');

  constructor(
    private readonly metrics: HttpMetrics,
    private readonly journal: RequestJournal,
    @Inject(REQUEST_CONTEXT_OPTIONS) private readonly options: RequestContextOptions,
  ) {}

  use(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void {
    const { tenantOf } = this.options;
    const incoming = req.headers[ChainHeader.RequestId];
    const minted = this.options.requestId === 'mint';
    const context = this.contextOf(req, minted, incoming);
    const { requestId } = context;
    contexts.set(req, context);
    res.setHeader(ChainHeader.RequestId, requestId);
    const started = process.hrtime.bigint();
    // The journal's timestamps, only where it is kept (FAULTS_ENABLED): the answer's last byte left at `finish`;
    // `close` can come later (the journal orders answers across services).
    const journaled = this.journal.enabled;
    const startedAt = journaled ? preciseNow() : 0;
    let finishedAt: number | undefined;
    if (journaled) {
      res.once('finish', () => {
        finishedAt = preciseNow();
      });
    }
    // Bound to the request's trace context (the server span's): `close` comes in the socket's context (nothing
    // binds the response's listeners, otel/server-spans.ts), and the access line must carry trace_id and span_id.
    const onClose = traceContext.bind(traceContext.active(), () => {
      // The route template is known once a route matched; unmatched paths share one label to bound cardinality.
      const route = routeTemplateOf(req) ?? 'unmatched';
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.httpRequests.inc({ method: req.method, route, status });
      this.metrics.httpDuration.observe({ method: req.method, route }, seconds);
      // Field order is the log line's: optional fields are spread in place so existing parsers see no change.
      // `close` comes from the socket, outside the request's log context: the line names its request itself.
      this.logger.log({
        msg: 'request',
        requestId,
        ...(minted && typeof incoming === 'string' ? { clientRequestId: incoming.slice(0, 128) } : {}),
        ...(tenantOf === undefined ? {} : { tenantId: tenantOf(req, context) }),
        method: req.method,
        path: originalUrlOf(req),
        route,
        status,
        replayed: res.getHeader(ChainHeader.IdempotentReplayed) === 'true',
        durationMs: Math.round(seconds * 1000),
      });
      if (journaled) {
        this.journalize(req, res, {
          requestId,
          route,
          status,
          startedAt,
          endedAt: finishedAt ?? preciseNow(),
        });
      }
    });
    res.once('close', onClose);
    withLogContext({ requestId }, next);
  }

  /** The request's id (minted, or the caller's when well-formed) and, with a request budget, its deadline. */
  private contextOf(
    req: IncomingMessage,
    minted: boolean,
    incoming: string | string[] | undefined,
  ): RequestContext {
    const requestId =
      !minted && typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const budget = this.options.requestBudgetMs;
    return budget === undefined
      ? { requestId }
      : {
          requestId,
          deadline: parseDeadline(req.headers[ChainHeader.Deadline], Date.now(), budget, MAX_BUDGET_MS),
        };
  }

  /**
   * The scenario journal's entry of a finished request (probes, metrics and scenario routes are not journaled);
   * called only while the journal is kept.
   */
  private journalize(
    req: IncomingMessage,
    res: ServerResponse,
    done: { requestId: string; route: string; status: string; startedAt: number; endedAt: number },
  ): void {
    const { route, status } = done;
    const path = originalUrlOf(req);
    if (route === '/health' || route === '/metrics' || path.startsWith('/__')) {
      return;
    }
    const key = journaledKey(req);
    this.journal.record({
      service: this.options.service,
      requestId: done.requestId,
      method: req.method ?? 'GET',
      route,
      path,
      ...(key === undefined ? {} : { idempotencyKeyDigest: idempotencyKeyDigest(key) }),
      startedAt: done.startedAt,
      endedAt: done.endedAt,
      status: status === 'aborted' ? status : res.statusCode,
      replayed: res.getHeader(ChainHeader.IdempotentReplayed) === 'true',
    });
  }
}

/**
 * The `Idempotency-Key` a journal entry names (by its digest only): decoded as the chain reads it, so a client's bare
 * `k` and the gateway's `"k"` to orders are one key; a header the parser refuses is named as it came.
 */
function journaledKey(req: IncomingMessage): string | undefined {
  const raw = req.headers[ChainHeader.IdempotencyKey];
  if (raw === undefined) return undefined;
  const parsed = parseIdempotencyKeyHeader(headerLinesOf(req, ChainHeader.IdempotencyKey));
  return parsed.ok ? parsed.key : String(raw);
}
