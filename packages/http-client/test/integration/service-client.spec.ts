import { describe, expect, it } from '@jest/globals';
import { busyFor } from '@retry-safe/testing';
import {
  DEADLINE_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  REQUEST_ID_HEADER,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  createServiceClient,
  type RetryInfo,
  type ServiceClientOptions,
} from '../../src/index.js';
import { clientRecordingAttempts } from './support/recording-client.js';
import { closedAfterEach, json, problem, reset } from './support/recording-server.js';

const { serve } = closedAfterEach();

const fast: Partial<ServiceClientOptions> = { baseDelayMs: 5, maxDelayMs: 20 };

describe('createServiceClient against a real HTTP server', () => {
  it('retries a reset and a 503, sending the same key, request id, deadline and body on every attempt', async () => {
    const server = await serve((n, req, res) => {
      if (n === 1) return reset(req);
      if (n === 2) return problem(res, 503, 'idempotency_store_unavailable', { 'retry-after': '0' });
      return json(res, 201, { id: 'ch_1' });
    });
    const retries: RetryInfo[] = [];
    const { client, attempts } = clientRecordingAttempts({
      baseURL: server.url,
      ...fast,
      onRetry: (r) => retries.push(r),
    });
    const deadline = Date.now() + 5000;

    const response = await client.post<{ id: string }>(
      '/v1/payments',
      { amount: 100 },
      { idempotencyKey: '"k-1"', requestId: 'req-1', deadline },
    );

    expect(response).toMatchObject({ ok: true, status: 201, data: { id: 'ch_1' }, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request).toMatchObject({ method: 'POST', url: '/v1/payments', body: '{"amount":100}' });
      expect(request.headers[IDEMPOTENCY_KEY_HEADER]).toBe('"k-1"');
      expect(request.headers[REQUEST_ID_HEADER]).toBe('req-1');
      expect(request.headers[DEADLINE_HEADER]).toBe(String(deadline));
    }
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(retries.map((r) => [r.retry, r.status, r.errorCode])).toEqual([
      [1, undefined, 'ECONNRESET'],
      [2, 503, 'ERR_BAD_RESPONSE'],
    ]);
  });

  it('an answer that arrived while this process was busy past the attempt timeout is used, not retried', async () => {
    // The server shares this thread: it answers, then keeps the thread busy three times the attempt timeout (a
    // loaded hop). The answer waits in the client's socket, read after the timers phase in which the attempt's
    // timer comes due; timing out there would resend a request that was answered.
    const server = await serve((_n, _req, res) => {
      json(res, 201, { id: 'ch_1' });
      void busyFor(300);
    });
    const client = createServiceClient({ baseURL: server.url, ...fast, attemptTimeoutMs: 100 });

    const response = await client.post('/v1/payments', { amount: 100 }, { idempotencyKey: 'k-busy' });

    expect(response).toMatchObject({ ok: true, status: 201, data: { id: 'ch_1' }, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a socket closed without an answer ("socket hang up")', async () => {
    const server = await serve((n, req, res) => (n === 1 ? req.socket.destroy() : json(res, 200, { ok: 1 })));
    const client = createServiceClient({ baseURL: server.url, ...fast });

    const response = await client.post('/v1/orders/o1/payments', {}, { idempotencyKey: 'k2' });

    expect(response).toMatchObject({ ok: true, status: 200, attempts: 2 });
    expect(server.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['k2', 'k2']);
  });

  it.each<[number, string, Record<string, string>]>([
    [409, 'payment_in_progress', { 'retry-after': '1' }],
    [422, 'idempotency_key_reused', {}],
    [400, 'validation_failed', {}],
    [429, 'rate_limited', { 'retry-after': '1' }],
  ])('returns a %i without retrying, with its body and Retry-After intact', async (status, code, headers) => {
    const server = await serve((_n, _req, res) => problem(res, status, code, headers));
    const client = createServiceClient({ baseURL: server.url, ...fast });

    const response = await client.post('/v1/payments', {}, { idempotencyKey: 'k3' });

    expect(server.requests).toHaveLength(1);
    expect(response).toMatchObject({ ok: false, status, attempts: 1, data: { status, code } });
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers['retry-after']).toBe(headers['retry-after']);
  });

  it('throws UpstreamUnavailableError with the last 503 once the retries are spent', async () => {
    const server = await serve((_n, _req, res) =>
      problem(res, 503, 'idempotency_store_unavailable', { 'retry-after': '1' }),
    );
    const client = createServiceClient({ baseURL: server.url, retries: 2, ...fast });

    const error = await client.post('/v1/payments', {}, { idempotencyKey: 'k4' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 3,
      lastStatus: 503,
      response: {
        status: 503,
        data: { code: 'idempotency_store_unavailable' },
        headers: { 'retry-after': '1', 'content-type': 'application/problem+json' },
      },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('throws UpstreamUnavailableError with the network cause when every attempt is reset', async () => {
    const server = await serve((_n, req) => reset(req));
    const client = createServiceClient({ baseURL: server.url, retries: 3, ...fast });

    const error = await client.post('/v1/payments', {}, { idempotencyKey: 'k5' }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 4, lastStatus: undefined });
    expect((error as UpstreamUnavailableError).cause).toMatchObject({ code: 'ECONNRESET' });
    expect(server.requests).toHaveLength(4);
  });

  it('does not retry a 500 (only 502/503/504 are retried)', async () => {
    const server = await serve((_n, _req, res) => problem(res, 500, 'internal_error'));
    const client = createServiceClient({ baseURL: server.url, ...fast });

    await expect(client.post('/v1/payments', {}, { idempotencyKey: 'k-500' })).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 1,
      lastStatus: 500,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries an attempt that timed out', async () => {
    const server = await serve((n, _req, res) => {
      if (n === 1) return void setTimeout(() => json(res, 200, { late: true }), 400);
      return json(res, 200, { late: false });
    });
    const client = createServiceClient({ baseURL: server.url, attemptTimeoutMs: 100, ...fast });

    const response = await client.post('/v1/payments', {}, { idempotencyKey: 'k6' });

    expect(response).toMatchObject({ ok: true, data: { late: false }, attempts: 2 });
    expect(server.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['k6', 'k6']);
  });

  it('bounds an attempt that never answers by the deadline, not by attemptTimeoutMs', async () => {
    const server = await serve(() => undefined);
    const { client, attempts } = clientRecordingAttempts({
      baseURL: server.url,
      attemptTimeoutMs: 10_000,
      retries: 5,
    });
    const started = Date.now();

    const error = await client
      .post('/v1/payments', {}, { idempotencyKey: 'k-slow', deadline: started + 300 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', attempts: 1 });
    expect(attempts[0]?.timeoutMs).toBeLessThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops retrying 503s when the next backoff would pass the deadline', async () => {
    const server = await serve((_n, _req, res) => problem(res, 503, 'unavailable'));
    const retries: RetryInfo[] = [];
    const client = createServiceClient({
      baseURL: server.url,
      retries: 50,
      baseDelayMs: 40,
      maxDelayMs: 80,
      onRetry: (r) => retries.push(r),
    });
    const started = Date.now();
    const deadline = started + 400;

    const error = await client
      .post('/v1/payments', {}, { idempotencyKey: 'k-down', deadline })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', lastStatus: 503 });
    const { attempts } = error as UpstreamTimeoutError;
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(15);
    expect(server.requests).toHaveLength(attempts);
    expect(server.requests.every((r) => r.headers[DEADLINE_HEADER] === String(deadline))).toBe(true);
    // The last backoff fitted inside the deadline.
    expect(retries.reduce((sum, r) => sum + r.delayMs, 0)).toBeLessThan(400);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('goes round robin over baseURLs, one per attempt', async () => {
    const down = await serve((_n, _req, res) => problem(res, 503, 'unavailable'));
    const up = await serve((_n, _req, res) => json(res, 201, { id: 'p1' }));
    const { client, attempts } = clientRecordingAttempts({
      baseURLs: [down.url, up.url],
      ...fast,
    });

    const first = await client.post('/v1/payments', {}, { idempotencyKey: 'k7' });
    const second = await client.post('/v1/payments', {}, { idempotencyKey: 'k8' });

    expect([first.attempts, second.attempts]).toEqual([2, 2]);
    expect(attempts.map((a) => a.baseURL)).toEqual([down.url, up.url, down.url, up.url]);
    expect(down.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['k7', 'k8']);
    expect(up.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['k7', 'k8']);
  });

  it('passes a GET through and sends no idempotency key when none is given', async () => {
    const server = await serve((_n, _req, res) => json(res, 200, { calls: 0 }));
    const client = createServiceClient({ baseURL: server.url, headers: { 'x-tenant-id': 't1' } });

    const response = await client.get<{ calls: number }>('/v1/charges');

    expect(response).toMatchObject({ ok: true, status: 200, data: { calls: 0 } });
    expect(server.requests[0]?.headers[IDEMPOTENCY_KEY_HEADER]).toBeUndefined();
    expect(server.requests[0]?.headers['x-tenant-id']).toBe('t1');
    expect(Number(server.requests[0]?.headers[DEADLINE_HEADER])).toBeGreaterThan(Date.now());
  });
});
