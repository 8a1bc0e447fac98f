import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  SpanKind,
  propagation,
  trace,
  type Context,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createServiceClient, type ServiceClientOptions } from '../../src/index.js';
import { closedAfterEach, json, problem, reset } from './support/recording-server.js';

const { serve } = closedAfterEach();
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('test');
const fast: Partial<ServiceClientOptions> = { baseDelayMs: 5, maxDelayMs: 20, tracer, name: 'payments' };

afterEach(() => exporter.reset());
afterAll(() => provider.shutdown());

const spansNamed = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('the client with a tracer: a span per call, a child span per attempt', () => {
  it('a reset, a 503, then 201: three attempt spans with their number and outcome under one call span', async () => {
    const server = await serve((n, req, res) => {
      if (n === 1) return reset(req);
      if (n === 2) return problem(res, 503, 'idempotency_store_unavailable');
      return json(res, 201, { id: 'ch_1' });
    });
    const client = createServiceClient({ baseURL: server.url, ...fast });

    await client.post('/v1/payments', { amount: 100 }, { idempotencyKey: '"k-1"' });

    const [call] = spansNamed('call payments');
    const attempts = spansNamed('attempt payments');
    expect(call?.attributes).toMatchObject({
      'retry_safe.upstream': 'payments',
      'http.request.method': 'POST',
      'url.path': '/v1/payments',
      'retry_safe.attempts': 3,
      'retry_safe.outcome': 'ok',
      'http.response.status_code': 201,
    });
    expect(
      attempts.map((span) => [
        span.parentSpanContext?.spanId,
        span.attributes['retry_safe.attempt'],
        span.attributes['http.request.resend_count'],
        span.attributes['retry_safe.outcome'],
        span.attributes['http.response.status_code'] ?? span.attributes['error.type'],
      ]),
    ).toEqual([
      [call?.spanContext().spanId, 1, undefined, 'network_error', 'ECONNRESET'],
      [call?.spanContext().spanId, 2, 1, 'server_error', 503],
      [call?.spanContext().spanId, 3, 2, 'ok', 201],
    ]);
    expect(call?.events.map((event) => [event.name, event.attributes?.['retry_safe.attempt']])).toEqual([
      ['retry', 1],
      ['retry', 2],
    ]);
    // The key is the caller's business: it is in no span.
    expect(JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))).not.toContain('k-1');
  });

  it('a 4xx is one attempt, client_error, passed up; a call that gives up says why', async () => {
    const server = await serve((n, _req, res) =>
      n === 1 ? problem(res, 409, 'payment_in_progress') : problem(res, 503, 'down'),
    );
    const client = createServiceClient({ baseURL: server.url, ...fast, retries: 1 });

    await client.post('/v1/payments', {}, { idempotencyKey: 'k-409' });
    await expect(client.post('/v1/payments', {}, { idempotencyKey: 'k-503' })).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
    });

    expect(
      spansNamed('call payments').map((span) => [
        span.attributes['retry_safe.attempts'],
        span.attributes['retry_safe.outcome'],
        span.status.code,
      ]),
    ).toEqual([
      [1, 'client_error', 0],
      [2, 'UPSTREAM_UNAVAILABLE', 2],
    ]);
    expect(spansNamed('attempt payments').map((span) => span.attributes['retry_safe.outcome'])).toEqual([
      'client_error',
      'server_error',
      'server_error',
    ]);
  });
});

/** W3C `traceparent` out, nothing in: what the services' propagator writes, without the SDK's package. */
const traceparentOut: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter) {
    const span = trace.getSpanContext(context);
    if (span === undefined) return;
    const flags = span.traceFlags.toString(16).padStart(2, '0');
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-${flags}`);
  },
  extract: (context) => context,
  fields: () => ['traceparent'],
};

describe('the attempt span is the HTTP client span: its traceparent goes out with the request', () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(traceparentOut);
  });
  afterAll(() => propagation.disable());

  it('kind CLIENT with the HTTP client attributes; each attempt sends its own span as the parent', async () => {
    const server = await serve((n, _req, res) =>
      n === 1 ? problem(res, 503, 'down') : json(res, 201, { id: 'ch_1' }),
    );
    const client = createServiceClient({ baseURL: server.url, ...fast });

    await client.post('/v1/payments', { amount: 100 }, { idempotencyKey: 'k-2' });

    const attempts = spansNamed('attempt payments');
    const port = Number(new URL(server.url).port);
    expect(
      attempts.map((span) => [
        span.kind,
        span.attributes['server.address'],
        span.attributes['server.port'],
        span.attributes['url.full'],
        span.attributes['http.response.status_code'],
        span.attributes['error.type'],
        span.status.code,
      ]),
    ).toEqual([
      [SpanKind.CLIENT, '127.0.0.1', port, `${server.url}/v1/payments`, 503, '503', 2],
      [SpanKind.CLIENT, '127.0.0.1', port, `${server.url}/v1/payments`, 201, undefined, 0],
    ]);
    expect(server.requests.map((request) => request.headers['traceparent'])).toEqual(
      attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
    );
    // One client span per request: the attempt's (the HTTP instrumentation adds none in the services).
    expect(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT)).toHaveLength(2);
  });

  it('an unsampled call records no span and still sends its trace context, marked not sampled', async () => {
    const unsampled = new TracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const server = await serve((_n, _req, res) => json(res, 201, { id: 'ch_1' }));
    const client = createServiceClient({
      baseURL: server.url,
      ...fast,
      tracer: unsampled.getTracer('test'),
    });

    await client.post('/v1/payments', {});
    await unsampled.shutdown();

    expect(server.requests.map((request) => request.headers['traceparent'])).toEqual([
      expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/),
    ]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
