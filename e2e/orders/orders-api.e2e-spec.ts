/**
 * The orders API through the gateway, on the real chain (gateway -> orders -> payments -> provider-sim) and orders'
 * own Postgres: an order created once per key, paid in two payments, read and listed by its tenant only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { newKey, pay } from '../support/client.js';
import { DEMO_TENANTS, startStack, type Stack } from '@retry-safe/scenarios';

describe('orders API through the gateway', () => {
  let stack: Stack;
  const as = (tenant: keyof typeof DEMO_TENANTS) => ({
    post: (path: string, key: string, body: object) =>
      request(stack.urls.gateway)
        .post(path)
        .set('Authorization', `Bearer ${DEMO_TENANTS[tenant].token}`)
        .set('Idempotency-Key', key)
        .send(body),
    get: (path: string) =>
      request(stack.urls.gateway).get(path).set('Authorization', `Bearer ${DEMO_TENANTS[tenant].token}`),
  });

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('creates an order once per key, pays it in two payments, and only its tenant reads it', async () => {
    const key = newKey('order');
    const created = await as('a').post('/v1/orders', key, { amount: 3000, currency: 'EUR' });
    const replay = await as('a').post('/v1/orders', key, { amount: 3000, currency: 'EUR' });
    expect([created.status, replay.status, replay.text, replay.headers['idempotent-replayed']]).toEqual([
      201,
      201,
      created.text,
      'true',
    ]);
    const orderId: string = created.body.id;

    const first = await pay(stack, { orderId, amount: 1000 });
    const second = await pay(stack, { orderId, amount: 2000 });
    const over = await pay(stack, { orderId, amount: 1 });
    expect([first.status, second.status, over.status, over.body.code]).toEqual([
      201,
      201,
      422,
      'payment_exceeds_balance',
    ]);

    const read = await as('a').get(`/v1/orders/${orderId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'paid', amount: 3000, paidAmount: 3000 });
    expect(read.body.payments.map((p: { chargeId: string }) => p.chargeId)).toEqual([
      first.body.id,
      second.body.id,
    ]);
    expect((await stack.providerCharges()).charges.map((c) => c.amount).sort()).toEqual(
      expect.arrayContaining([1000, 2000]),
    );

    const foreign = await as('b').get(`/v1/orders/${orderId}`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'order_not_found']);
    const listA = await as('a').get('/v1/orders?limit=100');
    const listB = await as('b').get('/v1/orders?limit=100');
    expect(listA.body.orders.map((o: { id: string }) => o.id)).toContain(orderId);
    expect(listB.body.orders.map((o: { id: string }) => o.id)).not.toContain(orderId);
  });
});
