/**
 * Internal trust: orders and payments do business only with callers holding INTERNAL_TOKEN (401 otherwise, with
 * nothing done downstream), and the internal services listen on 127.0.0.1 by default while the gateway keeps its
 * metrics off its public port.
 */
import { describe, expect, it } from '@jest/globals';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newKey, pay } from '../support/client.js';
import { DEMO_TENANTS, adminUrlOf } from '@retry-safe/scenarios';
import { useStack } from '../support/stack.js';

/** An IPv4 address of this host that is not loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((info) => info !== undefined && info.family === 'IPv4' && !info.internal)?.address;
}

/** True when a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('trust: internal services refuse callers without the internal credential', () => {
  const stack = useStack();

  it.each([
    ['no credential', undefined],
    ['a wrong credential', 'Bearer not-the-internal-token-0123456789abcdef'],
    ["a client's API token", `Bearer ${DEMO_TENANTS.b.token}`],
  ])('orders with %s: 401 problem, payments called 0 times, 0 charges', async (_label, auth) => {
    const req = request(stack().urls.orders)
      .post(`/v1/orders/${randomUUID()}/payments`)
      .set('Content-Type', 'application/json')
      .set('x-tenant-id', DEMO_TENANTS.b.tenantId)
      .set('Idempotency-Key', newKey('untrusted-orders'));
    const res = await (auth === undefined ? req : req.set('Authorization', auth)).send({
      amount: 1999,
      currency: 'EUR',
    });

    expect([res.status, res.headers['content-type'], res.body.code]).toEqual([
      401,
      'application/problem+json; charset=utf-8',
      'unauthorized',
    ]);
    expect((await stack().faultCounts('payments'))['POST /v1/payments'] ?? 0).toBe(0);
    expect(await stack().providerCharges()).toEqual({ calls: 0, charges: [] });
  });

  it('payments without the credential: 401 problem, the provider called 0 times, 0 charges', async () => {
    const res = await request(stack().urls.payments)
      .post('/v1/payments')
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', newKey('untrusted-payments'))
      .send({ tenantId: DEMO_TENANTS.b.tenantId, orderId: randomUUID(), amount: 1999, currency: 'EUR' });

    expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
    expect(await stack().providerCharges()).toEqual({ calls: 0, charges: [] });
  });

  it('the chain itself is trusted: a client payment through the gateway charges once', async () => {
    const res = await pay(stack(), { key: newKey('trusted') });
    expect(res.status).toBe(201);
    expect((await stack().providerCharges()).charges).toHaveLength(1);
  });

  // The stack's gateway listens on 127.0.0.1 (nothing outside needs it) and its scenario routes on its loopback admin
  // listener; the gateway on every interface (its default) is e2e/deployment's.
  it('internal services accept connections on 127.0.0.1 only; the gateway its /metrics and /__* not public', async () => {
    const address = externalAddress();
    const port = (url: string) => Number(new URL(url).port);
    if (address !== undefined) {
      for (const service of ['orders', 'payments', 'provider'] as const) {
        expect([service, await accepts(address, port(stack().urls[service]))]).toEqual([service, false]);
      }
    }
    for (const service of ['orders', 'payments', 'provider', 'gateway'] as const) {
      expect([service, await accepts('127.0.0.1', port(stack().urls[service]))]).toEqual([service, true]);
    }
    expect((await request(stack().urls.gateway).get('/metrics')).status).toBe(404);
    expect((await request(stack().urls.gateway).get('/__faults')).status).toBe(404);
    expect((await request(adminUrlOf(stack().urls, 'gateway')).get('/__faults')).status).toBe(200);
  });
});
