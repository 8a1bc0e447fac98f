/** Reading the spans a traced stack collected: one trace, its spans by service, kind and parent. */
import { sleep, waitFor, type CollectedSpan, type SpanCollector } from '@retry-safe/testing';

/** One trace's spans, with the questions the suites ask of them. */
export class Trace {
  constructor(readonly spans: readonly CollectedSpan[]) {}

  /** Spans of `service` (and `kind`, `name` when given), oldest first. */
  of(service: string, filter: { kind?: CollectedSpan['kind']; name?: string } = {}): CollectedSpan[] {
    return this.spans
      .filter(
        (span) =>
          span.service === service &&
          (filter.kind === undefined || span.kind === filter.kind) &&
          (filter.name === undefined || span.name === filter.name),
      )
      .sort((a, b) => a.startMs - b.startMs);
  }

  /** The direct children of `span`, oldest first (optionally only those named `name`). */
  children(span: CollectedSpan, name?: string): CollectedSpan[] {
    return this.spans
      .filter((child) => child.parentSpanId === span.spanId && (name === undefined || child.name === name))
      .sort((a, b) => a.startMs - b.startMs);
  }

  /** The one child of `span` named `name`; throws for none or several. */
  child(span: CollectedSpan, name: string): CollectedSpan {
    const found = this.children(span, name);
    if (found.length !== 1) throw new Error(`${span.name} has ${found.length} children named ${name}`);
    return found[0] as CollectedSpan;
  }

  /**
   * The client's attempt span that sent `server` (a server span): its parent, the HTTP client span the attempt span
   * is; undefined when the parent is not an attempt span.
   */
  attemptThatSent(server: CollectedSpan): CollectedSpan | undefined {
    const sender = this.spans.find((span) => span.spanId === server.parentSpanId);
    return sender?.kind === 'client' && sender.name.startsWith('attempt ') ? sender : undefined;
  }

  /** Whether every span but the root has its parent in the trace (nothing lost, nothing from elsewhere). */
  orphans(): CollectedSpan[] {
    const ids = new Set(this.spans.map((span) => span.spanId));
    return this.spans.filter((span) => span.parentSpanId !== undefined && !ids.has(span.parentSpanId));
  }
}

/**
 * Waits until the collector holds a span matching `root` and `complete` says its trace has arrived, then one more
 * export interval of every service (so a late batch shows up as an extra span instead of being missed), and
 * returns that trace.
 */
export async function collectTrace(
  collector: SpanCollector,
  root: (span: CollectedSpan) => boolean,
  complete: (trace: Trace) => boolean,
): Promise<Trace> {
  const traceId = await waitFor('the trace to arrive', async () => {
    const spans = collector.spans();
    const found = spans.find(root);
    if (found === undefined) throw new Error('no root span yet');
    if (!complete(new Trace(spans.filter((span) => span.traceId === found.traceId)))) {
      throw new Error('trace incomplete');
    }
    return found.traceId;
  });
  await sleep(300);
  return new Trace(collector.spans().filter((span) => span.traceId === traceId));
}
