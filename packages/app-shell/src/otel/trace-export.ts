import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** Where a service sends its spans: `OTEL_EXPORTER_OTLP_ENDPOINT`, read by the app's config. */
export interface TraceExportConfig {
  /** Base URL of an OTLP/HTTP receiver (a collector, Jaeger); spans go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long spans wait in the batch before they are sent. */
  readonly scheduleDelayMs: number;
  /**
   * `TRACES_SAMPLE_RATIO`: the share of traces started here that are recorded (0-1); a request that arrives with a
   * `traceparent` follows its caller's decision, so a sampled payment is sampled on every hop.
   */
  readonly sampleRatio: number;
}

/**
 * The sampler the hook starts the SDK with: records nothing while no exporter is attached (a span nobody exports
 * would cost its full price for nothing; the trace context still propagates), then the configured ratio at the
 * root and the caller's decision below it.
 */
export class DeferredSampler implements Sampler {
  private exporting: Sampler | undefined;

  /** Records `ratio` of the traces started here from now on (parent-based). */
  configure(ratio: number): void {
    this.exporting = new ParentBasedSampler({
      root: ratio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio),
    });
  }

  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    return this.exporting === undefined
      ? { decision: SamplingDecision.NOT_RECORD }
      : this.exporting.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `DeferredSampler{${this.exporting?.toString() ?? 'not exporting'}}`;
  }
}

/**
 * The span processor the telemetry hook starts the SDK with: it drops every span until the app's config names an
 * exporter ({@link exportTraces}), then hands them to a batch processor for it. The hook runs before the app and
 * reads no environment; only the app's validated config decides whether, and where, spans are exported.
 */
export class DeferredSpanProcessor implements SpanProcessor {
  private target: SpanProcessor | undefined;

  /** Sends every span ended from now on to `processor`. */
  attach(processor: SpanProcessor): void {
    this.target = processor;
  }

  get attached(): boolean {
    return this.target !== undefined;
  }

  onStart(span: Span, parentContext: Context): void {
    this.target?.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.target?.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.target?.forceFlush() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.target?.shutdown() ?? Promise.resolve();
  }
}

let started: DeferredSpanProcessor | undefined;
let sampler: DeferredSampler | undefined;

/** Called by the hook once the SDK runs with `processor` and `traceSampler`. */
export function tracingStarted(processor: DeferredSpanProcessor, traceSampler: DeferredSampler): void {
  started = processor;
  sampler = traceSampler;
}

/** Whether the telemetry hook (`--import @retry-safe/app-shell/otel`) started the SDK in this process. */
export function isTracing(): boolean {
  return started !== undefined;
}

/**
 * Exports this process's spans to `config.endpoint` over OTLP/HTTP (JSON), batched. A no-op when the hook did not
 * start the SDK (an app created in-process by a test) or when spans are exported already.
 * @returns false when the hook is not loaded, so the caller can say that nothing will be exported.
 */
export async function exportTraces(config: TraceExportConfig): Promise<boolean> {
  if (started === undefined) return false;
  if (started.attached) return true;
  // Loaded only when an exporter is configured: a service without one carries no exporter code.
  const [{ OTLPTraceExporter }, { BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace'),
  ]);
  const exporter = new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` });
  started.attach(new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.scheduleDelayMs }));
  sampler?.configure(config.sampleRatio);
  return true;
}

/** Sends the spans still in the batch (the last step of the shutdown order); never throws. */
export async function flushTraces(): Promise<void> {
  await started?.forceFlush().catch(() => undefined);
}
