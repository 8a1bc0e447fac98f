import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import express from 'express';
import { RequestJournal } from '../../src/admin/request-journal.js';
import {
  RequestContextMiddleware,
  chainContextOf,
  type RequestContextOptions,
} from '../../src/http/request-context.js';
import { HttpMetrics } from '../../src/telemetry/metrics.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A real Express server on a loopback port with the middleware in front of two routes. */
async function serve(options: RequestContextOptions) {
  const metrics = new HttpMetrics();
  const journal = new RequestJournal({ enabled: true });
  const middleware = new RequestContextMiddleware(metrics, journal, options);
  const app = express();
  app.use((req, res, next) => middleware.use(req, res, next));
  app.post('/v1/things/:id', (req, res) => {
    res.status(201).json({ chain: chainContextOf(req) ?? null });
  });
  app.post('/v1/drop/:id', (req) => {
    req.socket.destroy();
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    metrics,
    journal,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Served = Awaited<ReturnType<typeof serve>>;

async function requests(metrics: HttpMetrics, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.httpRequests.get();
  return metric.values
    .filter((v) =>
      Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

beforeAll(() => {
  Logger.overrideLogger(false);
});

describe('RequestContextMiddleware, propagating (a hop behind the edge)', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve({ service: 'orders', requestId: 'propagate', requestBudgetMs: 10_000 });
  });
  afterAll(async () => {
    await served.close();
  });

  it("keeps the caller's well-formed request id and deadline, and echoes the id", async () => {
    const deadline = Date.now() + 3_000;
    const res = await fetch(`${served.url}/v1/things/1`, {
      method: 'POST',
      headers: { 'x-request-id': 'req-abc.1', 'x-request-deadline': String(deadline) },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('req-abc.1');
    expect(await res.json()).toEqual({ chain: { requestId: 'req-abc.1', deadline } });
  });

  it('replaces a malformed request id (it would end up in logs) with a new one', async () => {
    const res = await fetch(`${served.url}/v1/things/2`, {
      method: 'POST',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('starts the budget when no deadline came, and caps a caller that asks for more than 60 s', async () => {
    const before = Date.now();
    const started = (await (await fetch(`${served.url}/v1/things/3`, { method: 'POST' })).json()) as {
      chain: { deadline: number };
    };
    expect(started.chain.deadline).toBeGreaterThanOrEqual(before + 10_000);
    expect(started.chain.deadline).toBeLessThanOrEqual(Date.now() + 10_000);

    const greedy = (await (
      await fetch(`${served.url}/v1/things/4`, {
        method: 'POST',
        headers: { 'x-request-deadline': String(Date.now() + 3_600_000) },
      })
    ).json()) as { chain: { deadline: number } };
    expect(greedy.chain.deadline).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('counts requests by route template and status, and a dropped answer as aborted', async () => {
    const route = '/v1/things/:id';
    const before = await requests(served.metrics, { route, status: '201' });
    await fetch(`${served.url}/v1/things/5`, { method: 'POST' });
    await fetch(`${served.url}/v1/things/6`, { method: 'POST' });
    await expect(fetch(`${served.url}/v1/drop/7`, { method: 'POST' })).rejects.toThrow();
    // The server's `close` event may come after the client saw the reset: wait for it, bounded.
    for (let i = 0; i < 100 && (await requests(served.metrics, { status: 'aborted' })) === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }

    expect(await requests(served.metrics, { route, status: '201' })).toBe(before + 2);
    expect(await requests(served.metrics, { route: '/v1/drop/:id', status: 'aborted' })).toBe(1);
    const dropped = served.journal.list().filter((e) => e.route === '/v1/drop/:id');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({
      service: 'orders',
      method: 'POST',
      status: 'aborted',
      path: '/v1/drop/7',
    });
  });
});

describe('RequestContextMiddleware, minting (the edge)', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve({ service: 'gateway', requestId: 'mint' });
  });
  afterAll(async () => {
    await served.close();
  });

  it('mints a new id for every request, whatever the client sent, and sets no deadline when it has no budget', async () => {
    const res = await fetch(`${served.url}/v1/things/1`, {
      method: 'POST',
      headers: { 'x-request-id': 'client-1' },
    });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(id).not.toBe('client-1');
    expect(await res.json()).toEqual({ chain: null });
  });
});
