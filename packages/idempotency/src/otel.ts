import { createRequire } from 'node:module';
import type * as OpenTelemetry from '@opentelemetry/api';
import type { IdempotencySpan } from './tracer.js';

// `@opentelemetry/api` is an optional peer: the app's own copy is used (a copy of ours could split the context), and
// an app without it runs untraced. Loaded synchronously, on the first span event, and never again: no top-level
// await, because a module that has one cannot be loaded with `require()` (ERR_REQUIRE_ASYNC_MODULE), and CommonJS
// apps (Nest 11's default) load this package that way. `require` finds the API's CommonJS build, the one its
// `import` finds too (its exports map both to it), so the app and this package share one instance.
let api: typeof OpenTelemetry | null | undefined;

function openTelemetry(): typeof OpenTelemetry | undefined {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as typeof OpenTelemetry;
    } catch {
      // Not installed: remembered, so an untraced app does not look it up on every call.
      api = null;
    }
  }
  return api ?? undefined;
}

/** The active span of the app's OpenTelemetry context, if the API is installed and a span is active. */
export function activeSpan(): IdempotencySpan | undefined {
  return openTelemetry()?.trace.getActiveSpan();
}
