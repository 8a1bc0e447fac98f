import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
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

    await client.post('/v1/payments', {});
    await expect(client.post('/v1/payments', {})).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });

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
