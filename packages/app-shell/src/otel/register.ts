// The telemetry hook: `node --import @retry-safe/app-shell/otel dist/main.js`. It runs before the app, so that
// ioredis and pg are instrumented when the app imports them: it registers the ESM loader hook that lets the
// instrumentations patch ES modules, and starts the OpenTelemetry SDK (W3C trace context, no metrics, no logs)
// with a span processor that exports nothing and a sampler that records nothing until the app's config names an
// endpoint (`exportTraces`, called by `bootstrap`, which also gives the app's server its server spans). It reads
// no environment variable of its own.
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { NodeSDK, core } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { serviceInstrumentations } from './instrumentations.js';
import { DeferredSampler, DeferredSpanProcessor, tracingStarted } from './trace-export.js';

/** `payments` for an entry in a package named `@retry-safe/payments` (the nearest package.json up from it). */
function serviceNameOf(entry: string | undefined): string {
  let dir = entry === undefined ? process.cwd() : dirname(entry);
  for (;;) {
    try {
      const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof name === 'string') return name.replace(/^@[^/]+\//, '');
    } catch {
      // No (readable) package.json here: look further up.
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown_service:node';
    dir = parent;
  }
}

if (isMainThread) {
  // Only the modules an instrumentation asks for are wrapped (not every import of the app).
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const processor = new DeferredSpanProcessor();
  const sampler = new DeferredSampler();
  const sdk = new NodeSDK({
    serviceName: serviceNameOf(process.argv[1]),
    spanProcessors: [processor],
    sampler,
    metricReaders: [],
    logRecordProcessors: [],
    textMapPropagator: new core.W3CTraceContextPropagator(),
    instrumentations: serviceInstrumentations(),
  });
  sdk.start();
  tracingStarted(processor, sampler);
  await waitForAllMessagesAcknowledged();
}
