import type { IncomingMessage, ServerResponse } from 'node:http';
import { isFaultsPath, serveFaultAdmin } from './fault-admin.js';
import type { FaultInjector } from './fault-injector.js';
import { FaultPhase, type FaultRule } from './fault-rules.schema.js';
import { pathOf, segmentsOf } from './path-matcher.js';
import { problemBody, sendJson, type ResponseWriter } from './problem.js';

/** The parts of an Express request the middleware reads (Express sets `route` once a route matched). */
export type FaultMiddlewareRequest = IncomingMessage & {
  originalUrl?: string;
  baseUrl?: string;
  route?: { path?: unknown };
  body?: unknown;
};

/** A connect/Express-style middleware. */
export type FaultMiddleware = (
  req: FaultMiddlewareRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** Options of {@link createFaultMiddleware}. */
export interface FaultMiddlewareOptions {
  /**
   * Paths (exact, query ignored) that are neither counted nor faulted. `/__faults` is always excluded.
   * @default ['/health', '/metrics']
   */
  ignorePaths?: readonly string[];
}

type OutputMethod = 'writeHead' | 'write' | 'end' | 'flushHeaders';
const OUTPUT_METHODS: readonly OutputMethod[] = ['writeHead', 'write', 'end', 'flushHeaders'];
type AnyFn = (...args: unknown[]) => unknown;

/**
 * The Express-level mechanism behind `FaultInjectionModule`: serves `/__faults`, applies `before-handler` rules
 * before routing, and wraps the response so `after-handler` rules apply at its first byte, which comes after the
 * handler (or the exception filter) finished. Counts every other request by route template (`req.route.path` is
 * known by then; a request a `before-handler` fault ended never reached a route and counts under its raw path).
 * Mount it before the routes.
 */
export function createFaultMiddleware(
  injector: FaultInjector,
  options: FaultMiddlewareOptions = {},
): FaultMiddleware {
  const ignored = new Set((options.ignorePaths ?? ['/health', '/metrics']).map(normalizePath));

  return (req, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    if (isFaultsPath(url)) {
      void serveFaultAdmin(injector, req, res, req.body);
      return;
    }
    const path = pathOf(url);
    if (ignored.has(normalizePath(path))) {
      next();
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    let counted = false;
    const count = (): void => {
      if (counted) return;
      counted = true;
      injector.countRequest(method, routeTemplateOf(req) ?? path);
    };
    // A request that never produced output (client gone, connection dropped) still reached the service.
    res.once('close', count);

    const before = injector.decide(method, path, FaultPhase.BeforeHandler, req.headers);
    if (before?.action === 'drop') {
      count();
      dropConnection(req, res);
      return;
    }
    if (before?.action === 'status') {
      count();
      sendProblem(res, before);
      return;
    }
    interceptResponse(req, res, () => {
      count();
      return injector.decide(method, path, FaultPhase.AfterHandler, req.headers);
    });
    if (before?.action === 'delay') {
      const timer = setTimeout(next, before.ms);
      // The caller gave up while the request was held: do not run the handler for nobody.
      res.once('close', () => clearTimeout(timer));
      return;
    }
    next();
  };
}

function normalizePath(path: string): string {
  return `/${segmentsOf(path).join('/')}`;
}

function routeTemplateOf(req: FaultMiddlewareRequest): string | undefined {
  const template = req.route?.path;
  return typeof template === 'string' ? `${req.baseUrl ?? ''}${template}` : undefined;
}

/** Destroys the connection without an answer: a TCP reset where available, so the caller sees ECONNRESET. */
function dropConnection(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  try {
    if (typeof socket.resetAndDestroy === 'function') {
      socket.resetAndDestroy();
      return;
    }
  } catch {
    // Not a TCP socket (or already closed): a plain destroy below still ends the exchange without an answer.
  }
  socket.destroy();
  res.destroy();
}

function sendProblem(
  res: ServerResponse,
  rule: Extract<FaultRule, { action: 'status' }>,
  write?: ResponseWriter,
): void {
  const headers: Record<string, string> =
    rule.retryAfter === undefined ? {} : { 'retry-after': String(rule.retryAfter) };
  const detail = rule.detail ?? `injected fault: ${rule.status} ${rule.code}`;
  sendJson(res, rule.status, problemBody(rule.status, rule.code, detail), headers, write);
}

/**
 * Wraps writeHead/write/end/flushHeaders so that `decide` runs at the first output call, i.e. after the handler
 * returned and its effects were saved, and before any byte is written. Each wrapper stays in place (another
 * middleware may have wrapped ours) and forwards according to the mode.
 */
function interceptResponse(
  req: IncomingMessage,
  res: ServerResponse,
  decide: () => FaultRule | undefined,
): void {
  const target = res as unknown as Record<OutputMethod, AnyFn>;
  const originals = Object.fromEntries(OUTPUT_METHODS.map((name) => [name, target[name]])) as Record<
    OutputMethod,
    AnyFn
  >;
  let mode: 'pending' | 'pass' | 'hold' | 'swallow' = 'pending';
  const held: Array<[OutputMethod, unknown[]]> = [];

  const release = (): void => {
    // Internal calls during the replay (end -> writeHead) must pass straight through.
    mode = 'pass';
    if (res.destroyed) return;
    for (const [name, args] of held.splice(0)) originals[name].apply(res, args);
  };

  for (const name of OUTPUT_METHODS) {
    target[name] = function faultInterceptor(this: unknown, ...args: unknown[]): unknown {
      if (mode === 'pending') {
        const rule = decide();
        if (rule === undefined) {
          mode = 'pass';
        } else if (rule.action === 'drop') {
          mode = 'swallow';
          dropConnection(req, res);
        } else if (rule.action === 'delay') {
          mode = 'hold';
          const timer = setTimeout(release, rule.ms);
          res.once('close', () => clearTimeout(timer));
        } else {
          mode = 'swallow';
          // The handler's headers (Idempotent-Replayed, ETag...) belong to the answer being replaced.
          for (const header of res.getHeaderNames()) res.removeHeader(header);
          sendProblem(res, rule, originals as unknown as ResponseWriter);
        }
      }
      if (mode === 'pass') return originals[name].apply(res, args);
      if (mode === 'hold') held.push([name, args]);
      // What the real method returns: write() "flushed", the others the response itself.
      return name === 'write' ? true : res;
    };
  }
}
