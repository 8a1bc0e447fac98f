/**
 * What axios-retry's defaults do to a POST whose answer is lost after the charge, and what this client's
 * `retryCondition` does instead: the lesson of docs/policy.md ("Retrying a POST"), with the charges counted.
 */
import { describe, expect, it } from '@jest/globals';
import axios from 'axios';
import axiosRetry from 'axios-retry';
import { IDEMPOTENCY_KEY_HEADER, createServiceClient, type ServiceClientOptions } from '../../src/index.js';
import { chargingProvider } from './support/charging-provider.js';
import { closedAfterEach, json, reset } from './support/recording-server.js';

const { serve } = closedAfterEach();
const fast: Partial<ServiceClientOptions> = { baseDelayMs: 5, maxDelayMs: 20, attemptTimeoutMs: 300 };

/** axios with axios-retry as its README sets it up: `axiosRetry(instance, { retries: 3 })`, nothing else. */
function axiosWithRetryDefaults(baseURL: string, timeout: number) {
  const instance = axios.create({ baseURL, timeout });
  axiosRetry(instance, { retries: 3 });
  return instance;
}

describe("axios-retry's defaults and a keyless POST whose answer is lost", () => {
  it('a late answer (timeout) is not retried: one charge, and the caller never learns it', async () => {
    const provider = chargingProvider('late');
    const server = await serve(provider.respond);

    const error = await axiosWithRetryDefaults(server.url, 300)
      .post('/v1/charges', { amount: 100 })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'ECONNABORTED' });
    expect(server.requests).toHaveLength(1);
    expect(provider.charges).toEqual(['ch_1']);
  });

  it('a 503 is not retried either (isNetworkOrIdempotentRequestError: 5xx only for GET, HEAD, OPTIONS, PUT, DELETE)', async () => {
    const server = await serve((n, _req, res) => (n === 1 ? json(res, 503, {}) : json(res, 201, {})));

    const error = await axiosWithRetryDefaults(server.url, 1000)
      .post('/v1/charges', {})
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ response: { status: 503 } });
    expect(server.requests).toHaveLength(1);
  });

  it('but a reset connection is a network error, retried for any method: the POST charges twice', async () => {
    const provider = chargingProvider('reset');
    const server = await serve(provider.respond);

    const response = await axiosWithRetryDefaults(server.url, 1000).post('/v1/charges', { amount: 100 });

    expect(response.data).toEqual({ id: 'ch_2' });
    expect(server.requests).toHaveLength(2);
    expect(provider.charges).toEqual(['ch_1', 'ch_2']);
  });
});

describe("this client's retryCondition: a POST is resent only with its Idempotency-Key", () => {
  it.each(['late', 'reset'] as const)(
    'a keyed POST whose answer is lost (%s) is retried with the same key and charges once',
    async (lost) => {
      const provider = chargingProvider(lost);
      const server = await serve(provider.respond);
      const client = createServiceClient({ baseURL: server.url, ...fast });

      const response = await client.post('/v1/charges', { amount: 100 }, { idempotencyKey: '"k-1"' });

      expect(response).toMatchObject({ ok: true, status: 201, data: { id: 'ch_1' }, attempts: 2 });
      expect(server.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['"k-1"', '"k-1"']);
      expect(provider.charges).toEqual(['ch_1']);
    },
  );

  it.each(['late', 'reset'] as const)(
    'a keyless POST whose answer is lost (%s) is not retried: one charge, and an error that nobody retried it',
    async (lost) => {
      const provider = chargingProvider(lost);
      const server = await serve(provider.respond);
      const client = createServiceClient({ baseURL: server.url, ...fast });

      const error = await client.post('/v1/charges', { amount: 100 }).catch((e: unknown) => e);

      expect(error).toMatchObject({
        code: lost === 'late' ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
        attempts: 1,
        retriesExhausted: false,
      });
      expect(server.requests).toHaveLength(1);
      expect(provider.charges).toEqual(['ch_1']);
    },
  );

  it('the demonstration of the unsafe design, a fresh key per attempt (idempotencyKeyPerAttempt), charges twice', async () => {
    const provider = chargingProvider('reset');
    const server = await serve(provider.respond);
    const client = createServiceClient({ baseURL: server.url, ...fast });

    const response = await client.post(
      '/v1/charges',
      { amount: 100 },
      { idempotencyKey: '"ignored"', idempotencyKeyPerAttempt: (attempt) => `"fresh-${attempt}"` },
    );

    expect(response).toMatchObject({ ok: true, data: { id: 'ch_2' }, attempts: 2 });
    expect(server.requests.map((r) => r.headers[IDEMPOTENCY_KEY_HEADER])).toEqual(['"fresh-1"', '"fresh-2"']);
    expect(provider.charges).toEqual(['ch_1', 'ch_2']);
  });

  it('a keyless GET is retried: reading twice does what reading once does', async () => {
    const server = await serve((n, req, res) => (n === 1 ? reset(req) : json(res, 200, { calls: 1 })));
    const client = createServiceClient({ baseURL: server.url, ...fast });

    await expect(client.get('/v1/charges')).resolves.toMatchObject({ ok: true, attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });
});
