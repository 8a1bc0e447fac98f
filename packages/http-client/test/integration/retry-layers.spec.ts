import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { freePort, waitFor } from '@retry-safe/testing';
import {
  DEADLINE_HEADER,
  RETRY_EXHAUSTED_HEADER,
  createServiceClient,
  signalWhenCallerLeaves,
  type AttemptInfo,
  type ServiceClientOptions,
} from '../../src/index.js';
import { clientRecordingAttempts } from './support/recording-client.js';
import { closedAfterEach, json, problem, reset } from './support/recording-server.js';

const { serve, track } = closedAfterEach();

/** Resolves once `condition` holds (polling every 5 ms). */
function until(what: string, condition: () => boolean): Promise<void> {
  return waitFor(
    what,
    async () => {
      if (!condition()) throw new Error(`not yet: ${what}`);
    },
    { intervalMs: 5 },
  );
}

const fast: Partial<ServiceClientOptions> = { baseDelayMs: 2, maxDelayMs: 5 };
// A POST is resent only with an idempotency key: every POST these tests expect retried (or not) carries one.
const keyed = { idempotencyKey: 'k-1' } as const;

describe('one retrying layer: x-retry-exhausted', () => {
  it('does not retry a 503 that says the hop below already retried it, and reports it exhausted', async () => {
    const server = await serve((_n, _req, res) =>
      problem(res, 503, 'idempotency_store_unavailable', {
        [RETRY_EXHAUSTED_HEADER]: 'true',
        'retry-after': '1',
      }),
    );
    const client = createServiceClient({ baseURL: server.url, retries: 3, ...fast });

    const error = await client.post('/v1/payments', {}, keyed).catch((e: unknown) => e);

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 1,
      lastStatus: 503,
      retriesExhausted: true,
    });
  });

  it('reports a failure it retried itself as exhausted, and one it was told not to retry (retries: 0) as not', async () => {
    const server = await serve((_n, req) => reset(req));
    const retrying = createServiceClient({ baseURL: server.url, retries: 2, ...fast });
    const single = createServiceClient({ baseURL: server.url, retries: 0, ...fast });

    await expect(retrying.post('/x', {}, keyed)).rejects.toMatchObject({
      attempts: 3,
      retriesExhausted: true,
    });
    await expect(single.post('/x', {}, keyed)).rejects.toMatchObject({
      attempts: 1,
      retriesExhausted: false,
    });
    expect(server.requests).toHaveLength(4);
  });

  it('does not mark a 500 (never retried): it passes up as it is', async () => {
    const server = await serve((_n, _req, res) => problem(res, 500, 'idempotency_record_corrupt'));
    const client = createServiceClient({ baseURL: server.url, ...fast });

    await expect(client.post('/x', {}, keyed)).rejects.toMatchObject({
      attempts: 1,
      lastStatus: 500,
      retriesExhausted: false,
      response: { data: { code: 'idempotency_record_corrupt' } },
    });
  });

  it('waits its own short backoff, not the Retry-After of the answer (the hint is for the end client)', async () => {
    const server = await serve((n, _req, res) =>
      n < 3 ? problem(res, 503, 'unavailable', { 'retry-after': '30' }) : json(res, 201, { id: 'c1' }),
    );
    const delays: number[] = [];
    const client = createServiceClient({
      baseURL: server.url,
      baseDelayMs: 10,
      maxDelayMs: 40,
      onRetry: (r) => delays.push(r.delayMs),
    });

    await expect(client.post('/x', {}, keyed)).resolves.toMatchObject({ ok: true, attempts: 3 });
    expect(delays).toHaveLength(2);
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(40);
  });
});

describe('the retry budget', () => {
  it('under a sustained outage, retries stay within ratio x calls + burst (default 0.1 and 10)', async () => {
    const server = await serve((_n, _req, res) => problem(res, 503, 'unavailable'));
    const client = createServiceClient({ baseURL: server.url, retries: 3, ...fast });
    const calls = 200;

    const errors = await Promise.all(
      Array.from({ length: calls }, (_, i) =>
        client.post('/x', {}, { idempotencyKey: `k-${i}` }).catch((e: unknown) => e),
      ),
    );

    // Without the budget: 4 x 200 = 800 requests.
    expect(server.requests.length).toBeLessThanOrEqual(calls + calls * 0.1 + 10);
    expect(server.requests.length).toBeGreaterThan(calls);
    // A call the budget stopped is exhausted too: the caller above must not retry it either.
    expect(errors.every((e) => (e as { retriesExhausted?: boolean }).retriesExhausted === true)).toBe(true);
  });

  it('retryBudget: false lets every call spend its retries', async () => {
    const server = await serve((_n, _req, res) => problem(res, 503, 'unavailable'));
    const client = createServiceClient({ baseURL: server.url, retries: 2, retryBudget: false, ...fast });

    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post('/x', {}, { idempotencyKey: `k-${i}` }).catch(() => undefined),
      ),
    );

    expect(server.requests).toHaveLength(60);
  });
});

describe('deadlines shrink along the chain', () => {
  it('sends each attempt its own end minus the margin, below the call deadline and below its timeout', async () => {
    const server = await serve((n, req, res) => (n === 1 ? reset(req) : json(res, 200, {})));
    const { client, attempts } = clientRecordingAttempts({
      baseURL: server.url,
      attemptTimeoutMs: 1000,
      attemptDeadlineMarginMs: 100,
      ...fast,
    });
    const deadline = Date.now() + 5000;

    await client.post('/x', {}, { ...keyed, deadline });

    expect(attempts).toHaveLength(2);
    server.requests.forEach((request, index) => {
      const sent = Number(request.headers[DEADLINE_HEADER]);
      const attempt = attempts[index] as AttemptInfo;
      expect(sent).toBe(attempt.sentDeadline);
      expect(sent).toBeLessThan(deadline);
      // The next hop's whole budget is this attempt's timeout minus the margin.
      expect(sent).toBeLessThanOrEqual(Date.now() + attempt.timeoutMs - 100);
    });
  });

  it('a hop that reads the propagated deadline times out before its caller: three hops, three shrinking timeouts', async () => {
    const timeouts: number[] = [];
    const leaf = await serve(() => undefined);
    const hop = (downstream: string) =>
      createServer((req, res) => {
        const client = createServiceClient({
          baseURL: downstream,
          attemptTimeoutMs: 5000,
          attemptDeadlineMarginMs: 100,
          retries: 0,
          onAttempt: (a) => timeouts.push(a.timeoutMs),
        });
        const deadline = Number(req.headers[DEADLINE_HEADER]);
        client
          .post('/x', {}, { deadline })
          .then(() => json(res, 200, {}))
          .catch(() => problem(res, 504, 'upstream_timeout'));
      });
    const middle = hop(leaf.url);
    const middlePort = await freePort();
    await new Promise<void>((resolve) => middle.listen(middlePort, '127.0.0.1', resolve));
    track({
      close: () => new Promise<void>((resolve) => middle.close(() => resolve())).then(() => undefined),
    });
    const top = createServiceClient({
      baseURL: `http://127.0.0.1:${middlePort}`,
      attemptTimeoutMs: 600,
      attemptDeadlineMarginMs: 100,
      retries: 0,
      onAttempt: (a) => timeouts.push(a.timeoutMs),
    });

    const answer = await top.post('/x', {}, { deadline: Date.now() + 10_000 }).catch((e: unknown) => e);

    // The middle hop's 504 (it timed out first) arrived before the top's own timeout.
    expect(answer).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', lastStatus: 504 });
    expect(timeouts).toHaveLength(2);
    const [topTimeout, middleTimeout] = timeouts as [number, number];
    expect(topTimeout).toBe(600);
    expect(middleTimeout).toBeLessThanOrEqual(topTimeout - 100);
    middle.closeAllConnections();
  });

  it('starts no attempt with less than minAttemptMs (50) left', async () => {
    const server = await serve((_n, _req, res) => json(res, 200, {}));
    const client = createServiceClient({ baseURL: server.url });

    await expect(client.post('/x', {}, { deadline: Date.now() + 30 })).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      attempts: 0,
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('AbortSignal', () => {
  it('abandons the attempt in flight and retries nothing once the signal fires', async () => {
    let closed = 0;
    const server = await serve((_n, req) => {
      req.socket.on('close', () => closed++);
    });
    const client = createServiceClient({ baseURL: server.url, retries: 3, attemptTimeoutMs: 5000, ...fast });
    const controller = new AbortController();

    const call = client.post('/x', {}, { ...keyed, signal: controller.signal }).catch((e: unknown) => e);
    await until('the first attempt arrived', () => server.requests.length === 1);
    controller.abort();

    expect(await call).toMatchObject({ code: 'REQUEST_ABORTED', attempts: 1 });
    await until('the attempt connection closed', () => closed === 1);
    expect(server.requests).toHaveLength(1);
  });

  it('signalWhenCallerLeaves fires when the caller disconnects, not when the answer completes', async () => {
    const signals: AbortSignal[] = [];
    const server = createServer((req, res) => {
      signals.push(signalWhenCallerLeaves(res));
      if (req.url === '/answer') res.end('ok');
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    track({
      close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
    });

    await fetch(`http://127.0.0.1:${port}/answer`);
    const leaving = new AbortController();
    const pending = fetch(`http://127.0.0.1:${port}/hang`, { signal: leaving.signal }).catch(() => undefined);
    await until('both requests arrived', () => signals.length === 2);
    leaving.abort();
    await pending;
    await until('the second signal fired', () => signals[1]?.aborted === true);

    expect(signals[0]?.aborted).toBe(false);
    expect(signals[1]?.aborted).toBe(true);
    server.closeAllConnections();
  });
});
