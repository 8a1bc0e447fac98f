import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';

/**
 * The CommonJS packages {@link serviceInstrumentations} patch, by the name an app requires them by. The
 * instrumentations hook `require`; an ES module's `import` of a CommonJS package does not go through it, so the
 * telemetry hook requires these first (the import then gets the loaded, patched module).
 */
export const INSTRUMENTED_PACKAGES = ['ioredis', 'pg'] as const;

/**
 * ioredis and pg: their spans only under a span (no trace per queue poll or outbox round), Redis statements as the
 * command name alone (keys carry idempotency keys, which never go into a span), and no span per pool checkout
 * (`pg-pool.connect`: one per transaction, saying nothing the query spans do not).
 *
 * HTTP has no instrumentation module here: the server spans are the shell's own (`traceServerRequests`, installed
 * by `bootstrap` on the app's server), and every call a service makes goes through `@retry-safe/http-client`, whose
 * attempt span is the HTTP client span and sends its `traceparent` itself (BullMQ, ioredis and pg speak their own
 * protocols, not HTTP; the OTLP exporter's requests are never traced). The HTTP instrumentation would add a second
 * client span per request, and build every server span's attributes whether it is recorded or not.
 */
export function serviceInstrumentations(): NodeSDKConfiguration['instrumentations'] {
  return [
    new IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command) => command,
    }),
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
  ];
}
