/**
 * Issue 16, one log shape, on the services' real output (every service a process, as `pnpm stack` runs them): every
 * line is JSON with `level` as a name and its service; every line a request causes, on every hop, carries that
 * request's id (lines the code writes without naming it too: a settings override, the worker's delivery lines);
 * nothing a client or a hop sent as a secret (idempotency keys, bearer tokens, the internal token) is written.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@retry-safe/testing';
import {
  adminUrlOf,
  DEMO_INTERNAL_TOKEN,
  DEMO_TENANTS,
  startStack,
  type ServiceName,
  type Stack,
} from '@retry-safe/scenarios';
import { newKey } from '../support/client.js';

const SERVICES = [
  'gateway',
  'orders',
  'payments',
  'provider',
  'worker',
] as const satisfies readonly ServiceName[];
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

type Line = Record<string, unknown>;

describe('log lines of a real stack', () => {
  let stack: Stack;
  /** Where each service's output stood before the test's traffic. */
  const offsets = new Map<ServiceName, number>();

  const output = (service: ServiceName): string => stack.processes(service)[0]!.output();
  const linesSince = (service: ServiceName): Line[] =>
    output(service)
      .slice(offsets.get(service))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  const accessLines = (service: ServiceName, requestId: string): Line[] =>
    linesSince(service).filter((line) => line['msg'] === 'request' && line['requestId'] === requestId);

  const gateway = () => request(stack.urls.gateway);
  const gatewayAdmin = () => request(adminUrlOf(stack.urls, 'gateway'));
  const bearer = `Bearer ${DEMO_TENANTS.a.token}`;
  const keys: string[] = [];
  const requestIds: string[] = [];
  let deliveryId = '';

  beforeAll(async () => {
    stack = await startStack({ worker: true });
    for (const service of SERVICES) offsets.set(service, output(service).length);

    const orderKey = newKey('order');
    const payKey = newKey('pay');
    keys.push(orderKey, payKey);
    const order = await gateway()
      .post('/v1/orders')
      .set('Authorization', bearer)
      .set('Idempotency-Key', orderKey)
      .send({ amount: 5000, currency: 'EUR' });
    expect(order.status).toBe(201);
    const orderId = order.body.id as string;
    const pay = (amount: number) =>
      gateway()
        .post(`/v1/orders/${orderId}/payments`)
        .set('Authorization', bearer)
        .set('Idempotency-Key', payKey)
        .send({ amount, currency: 'EUR' });
    const paid = await pay(1999);
    const replayed = await pay(1999);
    const reused = await pay(2000);
    expect([paid.status, replayed.status, reused.status]).toEqual([201, 201, 422]);
    const invoice = await gateway()
      .post(`/v1/orders/${orderId}/invoices`)
      .set('Authorization', bearer)
      .send({ version: 1, email: 'ada@example.com' });
    expect(invoice.status).toBe(202);
    deliveryId = invoice.body.deliveryId as string;
    // A line the code writes without naming a request: the settings override's warning.
    const override = await gatewayAdmin().put('/__config').send({ keyMode: 'regenerate' });
    expect(override.status).toBe(200);
    // In regenerate mode the gateway logs the fresh key of each attempt: it must come out redacted.
    const regenerated = await gateway()
      .post(`/v1/orders/${orderId}/payments`)
      .set('Authorization', bearer)
      .set('Idempotency-Key', newKey('pay'))
      .send({ amount: 1, currency: 'EUR' });
    keys.push(regenerated.request.getHeader('Idempotency-Key') as string);
    await gatewayAdmin().put('/__config').send({});
    for (const res of [order, paid, replayed, reused, invoice, override, regenerated]) {
      requestIds.push(res.headers['x-request-id'] as string);
    }

    // Every hop writes its access line when its own response closes, and each process's output arrives through
    // its own pipe: the gateway's lines being in says nothing about the lines of the hops behind it.
    const [, paidId, replayedId, reusedId, , overrideId, regeneratedId] = requestIds;
    const reached: Record<'gateway' | 'orders' | 'payments' | 'provider', (string | undefined)[]> = {
      gateway: requestIds,
      orders: requestIds.filter((id) => id !== overrideId),
      payments: [paidId, replayedId, reusedId, regeneratedId],
      provider: [paidId],
    };
    await waitFor('every access line of every hop', async () => {
      for (const [service, ids] of Object.entries(reached) as [keyof typeof reached, string[]][])
        for (const id of ids) if (accessLines(service, id).length !== 1) throw new Error(`${service} ${id}`);
    });
    await waitFor("the worker's delivery line", async () => {
      if (!linesSince('worker').some((line) => line['msg'] === 'invoice sent')) throw new Error('not yet');
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('every line is JSON in one shape: level as a name, time, service', () => {
    for (const service of SERVICES) {
      const lines = linesSince(service);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(LEVELS).toContain(line['level']);
        expect(line).toMatchObject({ service, time: expect.any(String), msg: expect.any(String) });
      }
    }
  });

  it("every line of the HTTP services during the traffic names its request, and each hop's lines are the chain's", () => {
    for (const service of ['gateway', 'orders', 'payments', 'provider'] as const) {
      const unnamed = linesSince(service).filter((line) => typeof line['requestId'] !== 'string');
      expect({ service, unnamed }).toEqual({ service, unnamed: [] });
    }
    const [order, paid, replayed, reused, invoice, override, regenerated] = requestIds as [
      string,
      ...string[],
    ];
    // One access line per request per hop it reached, under the gateway's id.
    for (const id of [order, paid, replayed, reused, invoice, regenerated]) {
      expect(accessLines('orders', id!)).toHaveLength(1);
    }
    for (const id of [paid, replayed, reused, regenerated])
      expect(accessLines('payments', id!)).toHaveLength(1);
    expect(accessLines('provider', paid!)).toHaveLength(1);
    expect(accessLines('payments', replayed!)[0]).toMatchObject({ status: '201', replayed: true });
    expect(accessLines('gateway', reused!)[0]).toMatchObject({ status: '422' });
    const gatewayLines = linesSince('gateway');
    expect(gatewayLines.filter((line) => line['requestId'] === override)).toEqual([
      expect.objectContaining({
        level: 'warn',
        context: 'RuntimeSettings',
        msg: 'settings overridden (PUT /__config)',
      }),
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('DEMONSTRATION MODE') }),
      expect.objectContaining({ level: 'info', msg: 'request', route: '/__config' }),
    ]);
    const fresh = gatewayLines.filter(
      (line) => line['requestId'] === regenerated && 'idempotencyKey' in line,
    );
    expect(fresh).toEqual([expect.objectContaining({ attempt: 1, idempotencyKey: '[Redacted]' })]);
    expect(linesSince('orders')).toContainEqual(
      expect.objectContaining({ msg: 'invoice delivery committed', requestId: invoice, deliveryId }),
    );
  });

  it("the worker's lines of a delivery carry the delivery's id as requestId, its job and attempt", () => {
    const lines = linesSince('worker').filter((line) => line['jobId'] !== undefined);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(line).toMatchObject({ requestId: deliveryId, jobId: deliveryId, attempt: 1 });
  });

  it('no idempotency key, bearer token or internal token is written, anywhere', () => {
    for (const service of SERVICES) {
      const text = output(service);
      for (const secret of [...keys, DEMO_TENANTS.a.token, DEMO_INTERNAL_TOKEN]) {
        expect({ service, leaked: text.includes(secret) ? secret : undefined }).toEqual({
          service,
          leaked: undefined,
        });
      }
    }
  });
});
