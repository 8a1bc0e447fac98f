/**
 * Keys (issue 3): what the public API does with idempotency keys, counted at the provider and in Redis.
 * One stack with the default design: coordinator on, `raise` mode, provider dedup on.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { expectReplayOf, newKey, newOrder, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { metricValue } from '@retry-safe/testing';
import { DEMO_TENANTS } from '@retry-safe/scenarios';
import { useStack } from '../support/stack.js';

const PROBLEM = /^application\/problem\+json/;
const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');
const TENANT_B_HEX = DEMO_TENANTS.b.tenantId.replaceAll('-', '');
const PAYMENTS_ROUTE = 'POST /v1/payments';
const ORDERS_ROUTE = 'POST /v1/orders/:orderId/payments';

describe('keys', () => {
  const stack = useStack();

  it('same key and parameters: the same Charge, byte for byte, and one provider charge', async () => {
    const key = newKey();
    const orderId = await newOrder(stack());
    const events = (type: string) => metricValue(stack().urls.payments, 'idempotency_events_total', { type });
    const [missesBefore, hitsBefore] = [await events('miss'), await events('hit')];

    const first = await pay(stack(), { key, orderId, amount: 2500, currency: 'EUR' });
    const second = await pay(stack(), { key, orderId, amount: 2500, currency: 'EUR' });

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body).toEqual({
      id: expect.any(String),
      orderId,
      amount: 2500,
      currency: 'EUR',
      status: 'succeeded',
      providerChargeId: expect.stringMatching(/^ch_/),
    });
    expectReplayOf(second, first);

    const ledger = await stack().providerCharges();
    expect(ledger.calls).toBe(1);
    expect(ledger.charges).toEqual([
      expect.objectContaining({
        id: first.body.providerChargeId,
        idempotencyKey: `payment.charge.${TENANT_A_HEX}.${key}`,
        amount: 2500,
        currency: 'EUR',
      }),
    ]);
    expect(await stack().redisKeys(`idem:payment.charge.${TENANT_A_HEX}:${key}`)).toHaveLength(1);
    // The coordinator's outcomes reach payments' metrics.
    expect((await events('miss')) - missesBefore).toBe(1);
    expect((await events('hit')) - hitsBefore).toBe(1);
  });

  it('a quoted sf-string key is the same key as its bare form', async () => {
    const key = newKey();
    const orderId = await newOrder(stack());

    const quoted = await pay(stack(), { key: `"${key}"`, orderId });
    const bare = await pay(stack(), { key, orderId });

    expect(quoted.status).toBe(201);
    expectReplayOf(bare, quoted);
    expect((await stack().providerCharges()).charges).toHaveLength(1);
  });

  it('same key with a changed amount: 422 idempotency_key_reused, nothing charged again', async () => {
    const key = newKey();
    const orderId = await newOrder(stack());
    expect((await pay(stack(), { key, orderId, amount: 1000 })).status).toBe(201);

    const changed = await pay(stack(), { key, orderId, amount: 1001 });

    expect(changed.status).toBe(422);
    expect(changed.headers['content-type']).toMatch(PROBLEM);
    expect(changed.body).toEqual({
      type: 'urn:retry-safe:problem:idempotency_key_reused',
      title: expect.any(String),
      status: 422,
      detail: expect.any(String),
      code: 'idempotency_key_reused',
    });
    expect((await stack().providerCharges()).calls).toBe(1);
  });

  it.each([
    { label: 'order:42', key: 'order:42', code: 'idempotency_key_invalid', detail: /':'/ },
    { label: 'empty', key: '', code: 'idempotency_key_invalid', detail: /empty/ },
    { label: 'of 256 characters', key: 'k'.repeat(256), code: 'idempotency_key_invalid', detail: /255/ },
    { label: 'missing', key: null, code: 'idempotency_key_missing', detail: /required/ },
    { label: 'repeated', key: ['rep-1', 'rep-1'], code: 'idempotency_key_invalid', detail: /once/ },
    { label: 'a broken sf-string', key: '"abc', code: 'idempotency_key_invalid', detail: /closing/ },
  ] as const)('key $label: 400 $code, no charge, nothing stored in Redis', async ({ key, code, detail }) => {
    const before = await stack().redisKeys('idem:');

    const res = await pay(stack(), { key });

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual({
      type: `urn:retry-safe:problem:${code}`,
      title: expect.any(String),
      status: 400,
      detail: expect.stringMatching(detail),
      code,
    });
    // Refused at the edge: the request never reached orders, let alone payments, the provider or Redis.
    expect((await stack().faultCounts('orders'))[ORDERS_ROUTE]).toBeUndefined();
    expect((await stack().faultCounts('payments'))[PAYMENTS_ROUTE]).toBeUndefined();
    expect((await stack().providerCharges()).calls).toBe(0);
    expect(await stack().redisKeys('idem:')).toEqual(before);
  });

  it('a key of exactly 255 characters is accepted', async () => {
    const res = await pay(stack(), { key: `${randomUUID()}`.padEnd(255, 'k') });
    expect(res.status).toBe(201);
  });

  it('a duplicate while the first is inside the provider call: 409 payment_in_progress, then the stored Charge', async () => {
    await holdNextCharge(stack());
    const key = newKey();
    const orderId = await newOrder(stack());

    const first = sendNow(pay(stack(), { key, orderId }));
    await chargeIsHeld(stack());
    const duplicate = await pay(stack(), { key, orderId });

    expect(duplicate.status).toBe(409);
    expect(duplicate.headers['retry-after']).toBe('1');
    expect(duplicate.headers['content-type']).toMatch(PROBLEM);
    expect(duplicate.body).toMatchObject({ status: 409, code: 'payment_in_progress' });

    const original = await first;
    expect(original.status).toBe(201);
    const retried = await pay(stack(), { key, orderId });
    expectReplayOf(retried, original);
    expect((await stack().providerCharges()).charges).toHaveLength(1);
  });

  it("tenants: B with A's key and parameters gets its own charge and never sees A's", async () => {
    const key = newKey('shared');
    // Orders belong to a tenant: each pays its own (B cannot see, let alone pay, A's order).
    const orders = { a: await newOrder(stack(), 'a'), b: await newOrder(stack(), 'b') };

    const a = await pay(stack(), { tenant: 'a', key, orderId: orders.a, amount: 700 });
    const b = await pay(stack(), { tenant: 'b', key, orderId: orders.b, amount: 700 });

    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.providerChargeId).not.toBe(a.body.providerChargeId);
    const ledger = await stack().providerCharges();
    expect(ledger.charges.map((charge) => charge.idempotencyKey).sort()).toEqual(
      [`payment.charge.${TENANT_A_HEX}.${key}`, `payment.charge.${TENANT_B_HEX}.${key}`].sort(),
    );
    // Each tenant keeps replaying its own Charge.
    const againA = await pay(stack(), { tenant: 'a', key, orderId: orders.a, amount: 700 });
    const againB = await pay(stack(), { tenant: 'b', key, orderId: orders.b, amount: 700 });
    expect(againA.text).toBe(a.text);
    expect(againB.text).toBe(b.text);
    expect((await stack().providerCharges()).charges).toHaveLength(2);
  });

  describe('the edge checks credentials and media type first', () => {
    it('no token: 401 unauthorized even without a key', async () => {
      const res = await pay(stack(), { tenant: null, key: null });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body).toMatchObject({ status: 401, code: 'unauthorized' });
    });

    it('unknown token: 401 unauthorized', async () => {
      const res = await pay(stack(), { authorization: 'Bearer not-a-token-of-anyone' });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized' });
    });

    it('a body that is not JSON: 415 unsupported_media_type', async () => {
      const res = await pay(stack(), { contentType: 'text/plain', body: 'amount=1' });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    });

    it('a body over the limit: 413 payload_too_large', async () => {
      const res = await pay(stack(), {
        body: JSON.stringify({ amount: 1, currency: 'EUR', pad: 'x'.repeat(20_000) }),
      });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    });

    it.each([
      ['a zero amount', { amount: 0, currency: 'EUR' }],
      ['a fractional amount', { amount: 10.5, currency: 'EUR' }],
      ['an unknown currency', { amount: 100, currency: 'EUX' }],
      ['a lower-case currency', { amount: 100, currency: 'eur' }],
      ['an unknown field', { amount: 100, currency: 'EUR', tip: 1 }],
      ['invalid JSON', '{"amount": 1,'],
    ])('%s: 400 validation_failed, no charge', async (_label, body) => {
      const res = await pay(stack(), { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect((await stack().providerCharges()).calls).toBe(0);
    });

    it('an order id that is not a UUID: 400 validation_failed', async () => {
      const res = await pay(stack(), { orderId: 'order-42' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });
  });
});
