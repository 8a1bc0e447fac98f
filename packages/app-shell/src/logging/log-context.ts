import { AsyncLocalStorage } from 'node:async_hooks';
import { context, createContextKey } from '@opentelemetry/api';
import { isTracing } from '../otel/trace-export.js';

/** What every log line written inside a unit of work carries: its request id, and for a job its job and attempt. */
export interface LogFields {
  /** The request's `x-request-id`; for a worker's delivery, the delivery's id (what the request journal uses). */
  readonly requestId: string;
  readonly [field: string]: string | number | undefined;
}

// Where the fields ride when the telemetry hook runs: in OpenTelemetry's context, which its context manager (an
// AsyncLocalStorage) already carries across every `await`. A second AsyncLocalStorage beside it made every
// promise of every request pay a second store's propagation (docs/benchmarks.md). The hook starts before the app
// and is never stopped, so a process decides once, and every line reads the fields where they were put.
const LOG_FIELDS = createContextKey('@retry-safe/app-shell log fields');

// Without the hook (an app created in-process by a test, a service started without it): a store of its own,
// created on first use, so that a traced process never enables it.
let ownStore: AsyncLocalStorage<LogFields> | undefined;

/**
 * Runs `fn` with `fields` on every log line written inside it, across every `await` (the shell's logger reads them
 * in its `mixin`). The request context middleware does it per request; a queue processor does it per delivery.
 * Under the telemetry hook the fields are part of the trace context: what is bound to that context has them.
 */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  if (isTracing()) return context.with(context.active().setValue(LOG_FIELDS, fields), fn);
  ownStore ??= new AsyncLocalStorage<LogFields>();
  return ownStore.run(fields, fn);
}

/** The fields of the unit of work running now, if any. */
export function currentLogFields(): LogFields | undefined {
  return isTracing()
    ? (context.active().getValue(LOG_FIELDS) as LogFields | undefined)
    : ownStore?.getStore();
}
