import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

// Probes and scenario controls, not work: a trace per health poll would bury the requests.
const UNTRACED_PATHS = /^\/(?:health(?:\/|$|\?)|metrics(?:$|\?)|__)/;

/** Request headers recorded on server spans; never the key nor a credential (they are not in the list). */
const REQUEST_HEADERS = ['x-request-id'] as const;
/** Response headers recorded on server spans. */
const RESPONSE_HEADERS = ['idempotent-replayed', 'x-retry-exhausted'] as const;

/** `host:port` of the Host header, split (an IPv6 literal keeps its brackets off). */
function serverOf(host: string | undefined): Attributes {
  if (host === undefined) return {};
  const match = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(host);
  if (match === null) return {};
  return match[2] === undefined
    ? { 'server.address': match[1] }
    : { 'server.address': match[1], 'server.port': Number(match[2]) };
}

/** What a recorded server span says of its request (OpenTelemetry's HTTP server conventions). */
function requestAttributes(req: IncomingMessage): Attributes {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const attributes: Attributes = {
    'http.request.method': req.method ?? 'GET',
    'url.scheme': 'http',
    'url.path': query < 0 ? url : url.slice(0, query),
    ...serverOf(req.headers.host),
    'client.address': req.socket.remoteAddress,
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'network.protocol.version': req.httpVersion,
    'user_agent.original': req.headers['user-agent'],
  };
  for (const name of REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') attributes[`http.request.header.${name}`] = [value];
  }
  return attributes;
}

/**
 * Ends a recorded server span once the answer is out (or the connection gone): its status, and its name after the
 * route template (`POST /v1/orders/:orderId/payments`) once a route matched (`req.route.path`, which the shell's
 * adapter sets, see `createShellHttpAdapter`).
 */
function endServerSpan(span: Span, req: IncomingMessage, res: ServerResponse): void {
  const route = (req as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  if (typeof route === 'string') {
    span.setAttribute('http.route', route);
    span.updateName(`${req.method ?? 'GET'} ${route}`);
  }
  for (const name of RESPONSE_HEADERS) {
    const value = res.getHeader(name);
    if (typeof value === 'string') span.setAttribute(`http.response.header.${name}`, [value]);
  }
  if (!res.writableFinished) {
    // The connection closed before the answer was sent (a client that left, a `drop` fault).
    span.setAttribute('error.type', 'aborted');
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** Options of {@link traceServerRequests}. */
export interface TraceServerOptions {
  /**
   * Start a new trace for every request and keep the caller's `traceparent` as a span link (the public edge: a
   * client must not choose our trace ids nor force sampling). @default false (the span is the caller's child)
   */
  readonly linkCaller?: boolean;
}

/**
 * Gives every request `server` handles a server span (kind SERVER) in the caller's trace (W3C `traceparent`,
 * through the global propagator), active while the request is handled, so the spans of its work sit under it;
 * health, metrics and scenario-control paths get none. A span that is not recorded (the sampler's decision, or no
 * exporter) costs its context only: no attributes, no listener.
 *
 * This replaces the HTTP instrumentation's server side, which built every span's attributes (a `new URL()`, the
 * client address from `Forwarded` headers, header captures) and two listeners per request whether the span was
 * recorded or not, and bound the request and response to it: about a quarter of what tracing cost per request
 * (docs/benchmarks.md). Call it before the server listens.
 */
export function traceServerRequests(
  server: Server,
  tracer: Tracer = trace.getTracer('@retry-safe/app-shell'),
  options: TraceServerOptions = {},
): void {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  const traced = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'request') return emit.call(this, event, ...args);
    const [req, res] = args as [IncomingMessage, ServerResponse];
    if (UNTRACED_PATHS.test(req.url ?? '')) return emit.call(this, event, ...args);
    const caller = propagation.extract(ROOT_CONTEXT, req.headers);
    const callerSpan = trace.getSpanContext(caller);
    // At the public edge the client's context is only a link: our trace ids and sampling stay ours.
    const parent = options.linkCaller === true ? ROOT_CONTEXT : caller;
    const links =
      options.linkCaller === true && callerSpan !== undefined && isSpanContextValid(callerSpan)
        ? [{ context: callerSpan }]
        : [];
    const span = tracer.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER, links }, parent);
    if (span.isRecording()) {
      span.setAttributes(requestAttributes(req));
      res.once('close', () => endServerSpan(span, req, res));
    }
    return context.with(trace.setSpan(parent, span), () => emit.call(this, event, ...args));
  };
  server.emit = traced as Server['emit'];
}
