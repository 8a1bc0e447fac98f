/**
 * The part of OpenTelemetry's API the coordinator uses, declared here rather than imported: `@opentelemetry/api` is
 * an optional peer, and a declaration file that imports it does not compile (TS2307) in an app that has not
 * installed it and type-checks its libraries (`skipLibCheck: false`). A `Tracer` and a `Span` of
 * `@opentelemetry/api` are assignable to these (the services and the tracing tests pass real ones).
 */

/** Attribute values the coordinator sets on its span. */
export type IdempotencySpanAttributes = Record<string, string | number | boolean>;

/** A span, as the coordinator writes to it (OpenTelemetry's `Span`). */
export interface IdempotencySpan {
  isRecording(): boolean;
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** `code`: OpenTelemetry's `SpanStatusCode` (2 is ERROR). */
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: IdempotencySpanAttributes): unknown;
  end(): void;
}

/** A tracer, as the coordinator starts its span with it (OpenTelemetry's `Tracer`, e.g. `trace.getTracer(name)`). */
export interface IdempotencyTracer {
  /** `kind`: OpenTelemetry's `SpanKind` (0 is INTERNAL). */
  startActiveSpan<F extends (span: IdempotencySpan) => unknown>(
    name: string,
    options: { kind?: number; attributes?: IdempotencySpanAttributes },
    fn: F,
  ): ReturnType<F>;
}
