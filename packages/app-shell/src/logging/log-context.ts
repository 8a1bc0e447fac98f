import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written inside a unit of work carries: its request id, and for a job its job and attempt. */
export interface LogFields {
  /** The request's `x-request-id`; for a worker's delivery, the delivery's id (what the request journal uses). */
  readonly requestId: string;
  readonly [field: string]: string | number | undefined;
}

// One store for the process: a request's middleware (or a job's processor) enters it once, every line inside reads it.
const store = new AsyncLocalStorage<LogFields>();

/**
 * Runs `fn` with `fields` on every log line written inside it, across every `await` (the shell's logger reads them
 * in its `mixin`). The request context middleware does it per request; a queue processor does it per delivery.
 */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  return store.run(fields, fn);
}

/** The fields of the unit of work running now, if any. */
export function currentLogFields(): LogFields | undefined {
  return store.getStore();
}
