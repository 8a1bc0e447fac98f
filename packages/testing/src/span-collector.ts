import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** Span kinds as OTLP numbers them (0 is unspecified). */
const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

/** The kind of a {@link CollectedSpan}. */
export type SpanKindName = (typeof KINDS)[number];

/** An attribute value as OTLP/JSON carries it, decoded. */
export type SpanAttributeValue = string | number | boolean | readonly (string | number | boolean)[];

/** One span a service exported, decoded from OTLP/JSON. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Absent for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: SpanKindName;
  /** `service.name` of the exporting process (`payments`, `invoice-worker`...). */
  readonly service: string;
  /** Epoch ms, fractional. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  readonly events: readonly {
    readonly name: string;
    readonly timeMs: number;
    readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The span contexts it links to (the public edge links the client's `traceparent` instead of joining it). */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

/** A receiver of OTLP/HTTP JSON traces in the test process: real spans, exported by the services under test. */
export interface SpanCollector {
  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  spans(): CollectedSpan[];
  /** Forgets every span received. */
  clear(): void;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttributes;
  events?: { name: string; timeUnixNano: string | number; attributes?: OtlpAttributes }[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: OtlpAttributes }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: OtlpValue): SpanAttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map((item) => valueOf(item) as string | number | boolean);
}

function attributesOf(list: OtlpAttributes): Record<string, SpanAttributeValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

const ms = (nanos: string | number): number => Number(BigInt(nanos) / 1000n) / 1000;

/** Decodes one OTLP/JSON export request into spans. */
export function decodeOtlpSpans(request: OtlpRequest): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): CollectedSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId:
          span.parentSpanId === undefined || span.parentSpanId === '' ? undefined : span.parentSpanId,
        name: span.name,
        kind: KINDS[span.kind ?? 0] ?? 'unspecified',
        service,
        startMs: ms(span.startTimeUnixNano),
        endMs: ms(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name,
          timeMs: ms(event.timeUnixNano),
          attributes: attributesOf(event.attributes),
        })),
        statusCode: span.status?.code ?? 0,
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
      })),
    );
  });
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/**
 * Starts an OTLP/HTTP receiver on a free loopback port that keeps every span posted to `/v1/traces` (JSON
 * encoding, what `@opentelemetry/exporter-trace-otlp-http` sends). Anything else is answered 415 or 404, so a
 * service exporting another encoding fails loudly instead of losing spans.
 */
export async function startSpanCollector(): Promise<SpanCollector> {
  let received: CollectedSpan[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      received.push(...decodeOtlpSpans(JSON.parse((await bodyOf(req)).toString('utf8')) as OtlpRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })().catch(() => {
      res.writeHead(400).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    clear: () => {
      received = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
