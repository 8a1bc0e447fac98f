import type * as OpenTelemetry from '@opentelemetry/api';
import type { IdempotencySpan } from './tracer.js';

// `@opentelemetry/api` is an optional peer: the app's own copy is used (a copy of ours could split the context), and
// an app without it runs untraced. Loaded once, when this module is first imported.
const api: typeof OpenTelemetry | undefined = await import('@opentelemetry/api').catch(() => undefined);

/** The active span of the app's OpenTelemetry context, if the API is installed and a span is active. */
export function activeSpan(): IdempotencySpan | undefined {
  return api?.trace.getActiveSpan();
}
