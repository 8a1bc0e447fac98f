import { beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { TENANT, TOKEN, useGatewayApp } from './gateway.app.js';

const ORDER = '6C1F4B6E-8B1E-4C3A-9F55-2D3C4B5A6978';

describe('gateway orders routes in-process, orders replaced', () => {
  const { orders, app } = useGatewayApp();
  const authed = (method: 'get' | 'post', path: string) =>
    request(app().getHttpServer())[method](path).set('Authorization', `Bearer ${TOKEN}`);

  beforeEach(() => {
    orders.answer = {
      ok: true,
      status: 201,
      data: { id: 'o-1' },
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
      attempts: 1,
    };
  });

  it('forwards a new order with the decoded key and the tenant, and relays the answer as it came', async () => {
    const res = await authed('post', '/v1/orders')
      .set('Idempotency-Key', '"order 7"')
      .send({ amount: 2500, currency: 'EUR' });
    expect([res.status, res.body, res.headers['idempotent-replayed']]).toEqual([201, { id: 'o-1' }, 'true']);
    expect(orders.calls).toEqual([
      {
        kind: 'create',
        order: { amount: 2500, currency: 'EUR' },
        key: 'order 7',
        caller: { tenantId: TENANT, requestId: res.headers['x-request-id'] },
      },
    ]);
  });

  it('forwards reads of one order (id normalised) and of a page', async () => {
    orders.answer = { ok: true, status: 200, data: { id: 'o-1' }, headers: {}, attempts: 1 };
    const one = await authed('get', `/v1/orders/${ORDER}`);
    const page = await authed('get', '/v1/orders?limit=5&cursor=abc_-1');
    expect([one.status, page.status]).toEqual([200, 200]);
    expect(orders.calls).toEqual([
      { kind: 'get', orderId: ORDER.toLowerCase(), caller: expect.objectContaining({ tenantId: TENANT }) },
      {
        kind: 'list',
        page: { limit: 5, cursor: 'abc_-1' },
        caller: expect.objectContaining({ tenantId: TENANT }),
      },
    ]);
  });

  it.each([
    ['no token', 'post', '/v1/orders', { key: 'k', auth: false }, 401, 'unauthorized'],
    ['no key', 'post', '/v1/orders', { auth: true }, 400, 'idempotency_key_missing'],
    ['a malformed key', 'post', '/v1/orders', { key: 'a:b', auth: true }, 400, 'idempotency_key_invalid'],
    [
      'an amount over the limit',
      'post',
      '/v1/orders',
      { key: 'k', auth: true, amount: 100_000_000 },
      400,
      'validation_failed',
    ],
    ['a read without a token', 'get', `/v1/orders/${ORDER}`, { auth: false }, 401, 'unauthorized'],
    ['a malformed order id', 'get', '/v1/orders/not-a-uuid', { auth: true }, 400, 'validation_failed'],
    ['limit=0', 'get', '/v1/orders?limit=0', { auth: true }, 400, 'validation_failed'],
  ] as const)('refuses %s and calls nobody', async (_label, method, path, given, status, code) => {
    let req = request(app().getHttpServer())[method](path);
    if (given.auth) req = req.set('Authorization', `Bearer ${TOKEN}`);
    if ('key' in given) req = req.set('Idempotency-Key', given.key);
    const res =
      method === 'post'
        ? await req.send({ amount: 'amount' in given ? given.amount : 1, currency: 'EUR' })
        : await req;
    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(orders.calls).toEqual([]);
  });
});
