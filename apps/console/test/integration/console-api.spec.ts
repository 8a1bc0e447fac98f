/**
 * The console's API in-process (supertest on a loopback port of its own), its stack replaced by a stand-in: a
 * StackService that starts no process, whose scenarios' target is a local HTTP server standing for every service.
 * That server counts each request the console's runs send the stack and answers 503, so an accepted run fails at
 * its first call, fast. Besides it, every child process this Jest worker starts is counted (the `child_process`
 * diagnostics channel), and the runs the console keeps are read back through its API. Bad input and a foreign
 * `Host` start none of the three; a good request is accepted and reaches the stand-in, which proves the counters
 * count. The page in a browser and the real stack are e2e/console.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { shellPlatform } from '@retry-safe/app-shell';
import { SCENARIOS, httpTarget, type DemoStack, type ScenarioTarget } from '@retry-safe/scenarios';
import { waitFor } from '@retry-safe/testing';
import { expectProblemAnswer } from '@retry-safe/testing/jest';
import { createTestApp } from '@retry-safe/testing/nest';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/console-config.js';
import { RunState, StackState, type RunView, type StatusView } from '../../src/runs/console-api.js';
import { StackService } from '../../src/stack/stack.service.js';

/** A good `POST /api/payments` body. */
const PAYMENT = { amount: 1999, key: 'explorer-key-1', loseAfterPayments: true, loseAfterOrders: false };
/** Every name `GET /api/scenarios/{name}/latest-run` knows: the scenarios and the explorer. */
const RUN_NAMES = [...SCENARIOS.map((scenario) => scenario.name), 'explorer'];

/** Stands for every service of the stack: records each request, answers 503. */
interface StandInServices {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

async function startStandInServices(): Promise<StandInServices> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(503, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ status: 503, code: 'stand_in', title: 'Not a stack' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/** In place of {@link StackService}: "up" at once, its target the stand-in services; it never starts a process. */
class StandInStack implements Pick<StackService, 'status' | 'running' | 'spans' | 'clearSpans'> {
  constructor(private readonly target: ScenarioTarget) {}

  status(): StatusView {
    return { stack: StackState.Up, elapsedMs: 0, log: [] };
  }

  running(): DemoStack {
    return { stack: undefined as never, target: this.target, close: async () => {} };
  }

  spans(): [] {
    return [];
  }

  clearSpans(): void {}
}

describe('the console API in-process, its stack a stand-in', () => {
  let services: StandInServices;
  let app: INestApplication;
  /** The console's address, as its page is opened. */
  let base: string;
  let port: number;
  let spawned = 0;
  const onSpawn = (): void => {
    spawned += 1;
  };

  beforeAll(async () => {
    services = await startStandInServices();
    subscribe('child_process', onSpawn);
  });
  afterAll(async () => {
    unsubscribe('child_process', onSpawn);
    await services?.close();
  });
  beforeEach(async () => {
    const target = httpTarget({
      gateway: services.url,
      orders: services.url,
      payments: services.url,
      provider: services.url,
    });
    app = await createTestApp(AppModule.forRoot(loadConfig({})), {
      overrides: [[StackService, new StandInStack(target)]],
      ...shellPlatform(),
    });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    services.requests.length = 0;
    spawned = 0;
  });
  afterEach(async () => {
    await app?.close();
  });

  /** No run kept, no request to the stack, no child process. */
  async function expectNothingStarted(): Promise<void> {
    for (const name of RUN_NAMES) {
      const latest = await request(base).get(`/api/scenarios/${name}/latest-run`);
      expect([name, latest.status, latest.body]).toEqual([name, 200, { run: null }]);
    }
    expect(services.requests).toEqual([]);
    expect(spawned).toBe(0);
  }

  /** The run `id` once it has ended (on the stand-in, every run fails at its first call to the stack). */
  async function ended(id: string): Promise<RunView> {
    return waitFor(`run ${id} ended`, async () => {
      const res = await request(base).get(`/api/runs/${id}`);
      const run = res.body as RunView;
      if (res.status !== 200 || run.state === RunState.Running) throw new Error(`still ${run.state}`);
      return run;
    });
  }

  describe('bad input: 400 validation_failed, and nothing starts', () => {
    it.each<[string, unknown]>([
      ['no scenario', {}],
      ['a scenario name with capitals and a space', { scenario: 'Chain all' }],
      ['a scenario name of 65 characters', { scenario: 'a'.repeat(65) }],
      ['a negative row', { scenario: 'chain', row: -1 }],
      ['a row that is not a whole number', { scenario: 'chain', row: 0.5 }],
      ['a row as a string', { scenario: 'chain', row: '0' }],
      ['a field the API does not have', { scenario: 'chain', rows: [0] }],
      ['an array', [{ scenario: 'chain' }]],
    ])('POST /api/runs with %s', async (_label, body) => {
      const res = await request(base)
        .post('/api/runs')
        .send(body as object);
      expectProblemAnswer(res, 400, 'validation_failed');
      await expectNothingStarted();
    });

    it.each<[string, unknown]>([
      ['no amount', { ...PAYMENT, amount: undefined }],
      ['an amount of 0', { ...PAYMENT, amount: 0 }],
      ['an amount in fractions of a cent', { ...PAYMENT, amount: 19.99 }],
      ['an amount over 1 000 000', { ...PAYMENT, amount: 1_000_001 }],
      ['an amount as a string', { ...PAYMENT, amount: '1999' }],
      ['an empty key', { ...PAYMENT, key: '' }],
      ['a key with a space', { ...PAYMENT, key: 'two words' }],
      ['a key of 201 characters', { ...PAYMENT, key: 'k'.repeat(201) }],
      ['no loseAfterPayments', { ...PAYMENT, loseAfterPayments: undefined }],
      ['loseAfterOrders as a string', { ...PAYMENT, loseAfterOrders: 'yes' }],
      ['a field the API does not have', { ...PAYMENT, currency: 'EUR' }],
    ])('POST /api/payments with %s', async (_label, body) => {
      const res = await request(base)
        .post('/api/payments')
        .send(body as object);
      expectProblemAnswer(res, 400, 'validation_failed');
      await expectNothingStarted();
    });

    it.each([
      ['POST /api/runs', '/api/runs', '{"scenario": "chain"'],
      ['POST /api/payments', '/api/payments', '{"amount": 1999,'],
    ])('%s with a body that is not JSON', async (_label, path, text) => {
      const res = await request(base).post(path).set('Content-Type', 'application/json').send(text);
      expectProblemAnswer(res, 400, 'validation_failed');
      await expectNothingStarted();
    });

    it.each([
      ['POST /api/runs', '/api/runs', JSON.stringify({ scenario: 'chain' })],
      ['POST /api/payments', '/api/payments', JSON.stringify(PAYMENT)],
    ])(
      '%s with a good body sent as text/plain (what a page of another site may send without asking)',
      async (_label, path, text) => {
        const res = await request(base).post(path).set('Content-Type', 'text/plain').send(text);
        expectProblemAnswer(res, 400, 'validation_failed');
        await expectNothingStarted();
      },
    );

    it.each([
      ['GET /api/runs/{id} with an id that is not a UUID', '/api/runs/not-a-uuid'],
      [
        'GET /api/scenarios/{name}/latest-run with a name that is not one',
        '/api/scenarios/Chain%20All/latest-run',
      ],
    ])('%s', async (_label, path) => {
      const res = await request(base).get(path);
      expectProblemAnswer(res, 400, 'validation_failed');
      await expectNothingStarted();
    });

    it.each<[string, object, string]>([
      ['a scenario there is none of', { scenario: 'no-such-scenario' }, 'no scenario named no-such-scenario'],
      ['a row chain does not have', { scenario: 'chain', row: 3 }, 'chain has no row 3'],
    ])('POST /api/runs with %s: 404 unknown_scenario', async (_label, body, detail) => {
      const res = await request(base).post('/api/runs').send(body);
      expectProblemAnswer(res, 404, 'unknown_scenario');
      expect(res.body.detail).toBe(detail);
      await expectNothingStarted();
    });
  });

  describe('Host: the console answers only as itself', () => {
    const foreign = (): Array<[string, string]> => [
      ['a rebinding name on its port', `attacker.example:${port}`],
      ['a name ending in a loopback name', `evil.localhost.example:${port}`],
      ['a name starting with a loopback address', `127.0.0.1.attacker.example:${port}`],
      ['its address on another port', `127.0.0.1:${port + 1}`],
      ['its address with no port', '127.0.0.1'],
      ['localhost with no port', 'localhost'],
      ['the any address', `0.0.0.0:${port}`],
      ['an empty Host', ''],
    ];
    const routes: Array<[string, (host: string) => request.Test]> = [
      [
        'POST /api/runs (a good body)',
        (host) => request(base).post('/api/runs').set('Host', host).send({ scenario: 'chain' }),
      ],
      [
        'POST /api/payments (a good body)',
        (host) => request(base).post('/api/payments').set('Host', host).send(PAYMENT),
      ],
      ['GET /api/status', (host) => request(base).get('/api/status').set('Host', host)],
      ['GET / (the page)', (host) => request(base).get('/').set('Host', host)],
      ['GET /health (a shell route)', (host) => request(base).get('/health').set('Host', host)],
      ['GET /metrics (a shell route)', (host) => request(base).get('/metrics').set('Host', host)],
      ['GET /nowhere (no route)', (host) => request(base).get('/nowhere').set('Host', host)],
    ];

    it('refuses every foreign Host on every route with 421 host_not_allowed, and starts nothing', async () => {
      for (const [hostLabel, host] of foreign()) {
        for (const [routeLabel, send] of routes) {
          const res = await send(host);
          expect([hostLabel, routeLabel, res.status, res.headers['content-type'], res.body.code]).toEqual([
            hostLabel,
            routeLabel,
            421,
            'application/problem+json; charset=utf-8',
            'host_not_allowed',
          ]);
        }
      }
      await expectNothingStarted();
    });

    it('says in the detail where the console answers', async () => {
      const res = await request(base).get('/api/status').set('Host', `attacker.example:${port}`);
      expect(res.body).toEqual({
        type: 'urn:retry-safe:problem:host_not_allowed',
        title: 'Misdirected request',
        status: 421,
        detail: `The console answers only as 127.0.0.1:${port}, localhost:${port}, [::1]:${port}, not as "attacker.example:${port}": open it at one of those`,
        code: 'host_not_allowed',
      });
    });

    it.each(['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]'])('answers %s:<its port>', async (name) => {
      const res = await request(base).get('/api/status').set('Host', `${name}:${port}`);
      expect([res.status, res.body]).toEqual([200, { stack: 'up', elapsedMs: 0, log: [] }]);
    });
  });

  describe('a good request is accepted and runs on the stack', () => {
    it('POST /api/runs {scenario, row}: 202 {id}, the run is kept and calls the stack (no process started)', async () => {
      const res = await request(base).post('/api/runs').send({ scenario: 'chain', row: 2 });

      expect(res.status).toBe(202);
      expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const run = await ended(res.body.id);
      expect(run).toMatchObject({ id: res.body.id, scenario: 'chain', state: RunState.Failed });
      expect(run.rows.map((row) => row.design)).toEqual(['key propagated']);
      // The stand-in refused the row's first call to the stack: the run got that far, and no further.
      expect(services.requests.length).toBeGreaterThan(0);
      expect(spawned).toBe(0);
      const latest = await request(base).get('/api/scenarios/chain/latest-run');
      expect(latest.body.run?.id).toBe(res.body.id);
    });

    it('POST /api/payments: 202 {id}, the explorer run is kept and calls the stack', async () => {
      const res = await request(base).post('/api/payments').send(PAYMENT);

      expect(res.status).toBe(202);
      const run = await ended(res.body.id);
      expect(run).toMatchObject({ id: res.body.id, scenario: 'explorer', state: RunState.Failed });
      expect(services.requests.length).toBeGreaterThan(0);
      const latest = await request(base).get('/api/scenarios/explorer/latest-run');
      expect(latest.body.run?.id).toBe(res.body.id);
    });
  });
});
