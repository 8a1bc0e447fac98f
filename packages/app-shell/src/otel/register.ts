// The telemetry hook: `node --import @retry-safe/app-shell/otel dist/main.js`. It runs before the app, so that
// ioredis and pg are instrumented when the app imports them, and starts the OpenTelemetry SDK (W3C trace context,
// no metrics, no logs) with a span processor that exports nothing and a sampler that records nothing until the
// app's config names an endpoint (`exportTraces`, called by `bootstrap`, which also gives the app's server its
// server spans). It reads no environment variable of its own.
//
// No ESM loader hook (import-in-the-middle's) is registered: it would send every module of the app through a
// second thread at start-up, about 0.6 s of each service's 1.5 s start. The two instrumented libraries are
// CommonJS: the hook requires them (`preloadInstrumented`), the instrumentations patch them as they load, and the
// app's `import` later gets the same, patched module (the traces suite checks their spans).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { NodeSDK, core } from '@opentelemetry/sdk-node';
import { INSTRUMENTED_PACKAGES, serviceInstrumentations } from './instrumentations.js';
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

/**
 * Requires each of `packages` as the app at `entry` resolves it, once the instrumentations are registered; one the
 * app does not depend on is skipped (payments has no pg).
 */
function preloadInstrumented(entry: string | undefined, packages: readonly string[]): void {
  const requireFromApp = createRequire(entry ?? join(process.cwd(), 'index.js'));
  for (const name of packages) {
    try {
      requireFromApp(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    }
  }
}

if (isMainThread) {
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
  preloadInstrumented(process.argv[1], INSTRUMENTED_PACKAGES);
  tracingStarted(processor, sampler);
}
