import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type { IncomingMessage, ServerResponse } from 'node:http';

// Probes and scenario controls, not work: a trace per health poll would bury the requests.
const UNTRACED_PATHS = /^\/(?:health(?:\/|$|\?)|metrics(?:$|\?)|__)/;

/** Headers recorded on server spans; never the key nor a credential (they are not in the list). */
const SERVER_HEADERS = {
  requestHeaders: ['x-request-id'],
  responseHeaders: ['idempotent-replayed', 'x-retry-exhausted'],
};

/** Names a server span after its route template (`POST /v1/orders/:orderId/payments`), once Express matched it. */
function nameAfterRoute(
  span: { setAttribute(key: string, value: string): unknown; updateName(name: string): unknown },
  request: unknown,
  response: unknown,
): void {
  if (!(typeof (response as ServerResponse).getHeader === 'function')) return;
  const route = (request as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  if (typeof route !== 'string') return;
  span.setAttribute('http.route', route);
  span.updateName(`${(request as IncomingMessage).method ?? 'GET'} ${route}`);
}

/**
 * HTTP server spans (W3C `traceparent` in), ioredis and pg. Not the HTTP instrumentation's outgoing side: every
 * call a service makes goes through `@retry-safe/http-client`, whose attempt span is the HTTP client span and sends
 * its `traceparent` itself (BullMQ, ioredis and pg speak their own protocols over sockets, not HTTP; the OTLP
 * exporter's own requests are never traced); wrapping `http.request` as well would add a second client span per
 * request and cost about a third of the instrumentation's time per answer (a `new URL()` per request, its
 * attributes, its listeners). Redis and SQL spans only under a
 * span (no trace per queue poll or outbox round), and Redis statements as the command name alone: keys carry
 * idempotency keys, which never go into a span.
 */
export function serviceInstrumentations(): NodeSDKConfiguration['instrumentations'] {
  return [
    new HttpInstrumentation({
      disableOutgoingRequestInstrumentation: true,
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
      applyCustomAttributesOnSpan: nameAfterRoute,
      headersToSpanAttributes: { server: SERVER_HEADERS },
    }),
    new IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command) => command,
    }),
    new PgInstrumentation({ requireParentSpan: true }),
  ];
}
