import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { core } from '@opentelemetry/sdk-node';
import {
  InMemorySpanExporter,
  ParentBasedSampler,
  AlwaysOnSampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { traceServerRequests } from '../../src/otel/server-spans.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({
  sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';

/** What the handler saw: the active span's ids (after an await), and the close listeners its response had. */
const seen: { traceId?: string; spanId?: string; closeListeners?: number }[] = [];

/** A route `/things/:id` that answers after an await, as an Express route would be named; `/fail` answers 503. */
function handle(req: IncomingMessage, res: ServerResponse): void {
  const closeListeners = res.listenerCount('close');
  void sleep(1).then(() => {
    const active = trace.getActiveSpan()?.spanContext();
    seen.push({ traceId: active?.traceId, spanId: active?.spanId, closeListeners });
    if (req.url === '/held') return;
    (req as IncomingMessage & { route?: { path: string } }).route = { path: '/things/:id' };
    res.setHeader('idempotent-replayed', 'true');
    res.writeHead(req.url === '/fail' ? 503 : 200).end('{}');
  });
}

let server: Server;
let url: string;
/** The same handler at the public edge (`linkCaller`, as the gateway's bootstrap sets it with `publicEdge: true`). */
let edge: Server;
let edgeUrl: string;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  server = createServer(handle);
  traceServerRequests(server, provider.getTracer('test'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  edge = createServer(handle);
  traceServerRequests(edge, provider.getTracer('test'), { linkCaller: true });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
});

afterEach(() => {
  exporter.reset();
  seen.length = 0;
});

afterAll(async () => {
  for (const each of [server, edge]) {
    each.closeAllConnections();
    await new Promise((resolve) => each.close(resolve));
  }
  await provider.shutdown();
  context.disable();
  propagation.disable();
});

const traceparent = (flags: string) => ({ traceparent: `00-${TRACE}-${CALLER}-${flags}` });

/** Waits for `count` finished spans (a span ends on the response's `close`, after the client has its answer). */
async function finished(count: number) {
  for (let i = 0; i < 200 && exporter.getFinishedSpans().length < count; i++) await sleep(5);
  return exporter.getFinishedSpans();
}

describe('server spans: one per request, in the caller trace, recorded only when sampled', () => {
  it("a sampled request: a SERVER span under the caller's, active in the handler, named after its route", async () => {
    const res = await fetch(`${url}/things/t1?page=2`, {
      method: 'POST',
      headers: { ...traceparent('01'), 'x-request-id': 'r-1' },
      body: '{}',
    });
    await res.text();

    const [span] = await finished(1);
    expect(span).toMatchObject({ name: 'POST /things/:id', kind: SpanKind.SERVER, status: { code: 0 } });
    expect(span?.parentSpanContext?.spanId).toBe(CALLER);
    expect(span?.spanContext().traceId).toBe(TRACE);
    expect(seen).toEqual([{ traceId: TRACE, spanId: span?.spanContext().spanId, closeListeners: 1 }]);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'url.path': '/things/t1',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(url).port),
      'http.route': '/things/:id',
      'http.response.status_code': 200,
      'http.request.header.x-request-id': ['r-1'],
      'http.response.header.idempotent-replayed': ['true'],
    });
  });

  it('a 5xx answer and a request whose client left are errors', async () => {
    await (await fetch(`${url}/fail`, { headers: traceparent('01') })).text();
    const leave = new AbortController();
    const held = fetch(`${url}/held`, { headers: traceparent('01'), signal: leave.signal }).catch(
      () => 'left',
    );
    for (let i = 0; i < 200 && seen.length < 2; i++) await sleep(5);
    leave.abort();
    expect(await held).toBe('left');

    const spans = await finished(2);
    expect(
      spans.map((span) => [
        span.attributes['http.response.status_code'],
        span.attributes['error.type'],
        span.status.code,
      ]),
    ).toEqual([
      [503, '503', 2],
      [undefined, 'aborted', 2],
    ]);
  });

  it('an unsampled request: its context is active in the handler, no span is recorded, no listener added', async () => {
    await (await fetch(`${url}/things/t2`, { headers: traceparent('00') })).text();
    await sleep(50);

    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(seen).toEqual([{ traceId: TRACE, spanId: expect.not.stringMatching(CALLER), closeListeners: 0 }]);
  });

  it('health, metrics and scenario controls get no span', async () => {
    for (const path of ['/health/ready', '/metrics', '/__faults']) {
      await (await fetch(`${url}${path}`, { headers: traceparent('01') })).text();
    }
    await sleep(50);

    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(seen.map((s) => s.traceId)).toEqual([undefined, undefined, undefined]);
  });
});

describe('server spans at the public edge (linkCaller): a trace of our own, the client only linked', () => {
  it("a client's traceparent: a root SERVER span in a new trace, with one link to the client's span context", async () => {
    await (await fetch(`${edgeUrl}/things/t3`, { headers: traceparent('01') })).text();

    const [span] = await finished(1);
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE);
    expect(span?.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: TRACE, spanId: CALLER, traceFlags: 1 }),
    ]);
    // The handler's work runs in the edge's own trace, not the client's.
    expect(seen).toEqual([
      { traceId: span?.spanContext().traceId, spanId: span?.spanContext().spanId, closeListeners: 1 },
    ]);
  });

  it('a client cannot switch sampling off: an unsampled traceparent is still recorded, as our sampler decides', async () => {
    await (await fetch(`${edgeUrl}/things/t4`, { headers: traceparent('00') })).text();

    const [span] = await finished(1);
    expect(span?.spanContext().traceId).not.toBe(TRACE);
    expect(span?.links).toHaveLength(1);
  });

  it('no traceparent: a root span without links', async () => {
    await (await fetch(`${edgeUrl}/things/t5`)).text();

    const [span] = await finished(1);
    expect([span?.parentSpanContext, span?.links]).toEqual([undefined, []]);
  });

  it("an internal hop (no linkCaller) keeps the caller's trace and parent, and has no link", async () => {
    await (await fetch(`${url}/things/t6`, { headers: traceparent('01') })).text();

    const [span] = await finished(1);
    expect([span?.spanContext().traceId, span?.parentSpanContext?.spanId, span?.links]).toEqual([
      TRACE,
      CALLER,
      [],
    ]);
  });
});
