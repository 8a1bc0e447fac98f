import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type pg from 'pg';
import request from 'supertest';
import { applyChargeOperation } from '../../src/payments/order-payments.service.js';
import { FakePayments, createOrder, useOrdersWorld } from './orders.app.js';
import { statementsWith, transactionsWith } from './statements.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';

describe('paying an order: checks in order, every attempt passed on to payments, each Charge applied once', () => {
  const payments = new FakePayments();
  const world = useOrdersWorld(payments);
  const app = (): INestApplication => world().app;
  const pool = (): pg.Pool => world().pool;

  const newOrder = (amount: number, currency = 'EUR'): Promise<string> =>
    createOrder(app(), TENANT, { amount, currency });
  const pay = (orderId: string, key: string, body: unknown) =>
    request(app().getHttpServer())
      .post(`/v1/orders/${orderId}/payments`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .set('Idempotency-Key', key)
      .send(body as object);
  const orderOf = async (orderId: string) =>
    (
      await request(app().getHttpServer())
        .get(`/v1/orders/${orderId}`)
        .set('x-tenant-id', TENANT)
        .set(TEST_INTERNAL_AUTHORIZATION)
    ).body;
  const recordOf = async (key: string) =>
    (
      await pool().query(
        'SELECT owner, state, payload FROM idempotency_records WHERE operation = $1 AND key = $2',
        [applyChargeOperation(TENANT), key],
      )
    ).rows;
  const chargeRows = async (orderId: string) =>
    Number(
      (await pool().query('SELECT count(*) FROM order_payments WHERE order_id = $1', [orderId])).rows[0]
        .count,
    );

  /** The key's record completed with the Charge, and the Charge applied once. */
  const expectAppliedOnce = async (key: string, orderId: string, amount: number) => {
    expect(await recordOf(key)).toEqual([
      { owner: expect.any(String), state: 'c', payload: expect.any(String) },
    ]);
    expect(await orderOf(orderId)).toMatchObject({ paidAmount: amount });
    expect(await chargeRows(orderId)).toBe(1);
  };

  beforeEach(() => {
    payments.calls.length = 0;
    payments.answer = undefined;
  });

  it('applies the Charge: paidAmount grows, the order is paid when nothing is owed, and GET lists the charge', async () => {
    const orderId = await newOrder(1000);
    const first = await pay(orderId, 'p-1', { amount: 400, currency: 'EUR' });
    expect([first.status, first.body.amount, await chargeRows(orderId)]).toEqual([201, 400, 1]);
    expect(await orderOf(orderId)).toMatchObject({ status: 'awaiting_payment', paidAmount: 400 });

    const second = await pay(orderId, 'p-2', { amount: 600, currency: 'EUR' });
    expect(second.status).toBe(201);
    const order = await orderOf(orderId);
    expect(order).toMatchObject({ status: 'paid', paidAmount: 1000 });
    expect(order.payments).toEqual([
      {
        chargeId: first.body.id,
        amount: 400,
        currency: 'EUR',
        status: 'succeeded',
        createdAt: expect.any(String),
      },
      {
        chargeId: second.body.id,
        amount: 600,
        currency: 'EUR',
        status: 'succeeded',
        createdAt: expect.any(String),
      },
    ]);
  });

  it('passes a retry on to payments and relays its replay byte for byte, without applying the Charge again', async () => {
    const orderId = await newOrder(1000);
    const first = await pay(orderId, 'p-retry', { amount: 1000, currency: 'EUR' });
    // The order is paid now: the retry must not be refused as exceeding the balance, it is the same payment.
    const retry = await pay(orderId, 'p-retry', { amount: 1000, currency: 'EUR' });
    expect([retry.status, retry.text, retry.headers['idempotent-replayed']]).toEqual([
      201,
      first.text,
      'true',
    ]);
    expect(payments.calls).toHaveLength(2);
    expect(await orderOf(orderId)).toMatchObject({ status: 'paid', paidAmount: 1000 });
    expect(await chargeRows(orderId)).toBe(1);
  });

  it("applies a fresh key's Charge with its completed record in one statement, outside any transaction", async () => {
    const orderId = await newOrder(800);
    let paid!: request.Response;
    const statements = await statementsWith(/^(orders:apply-charge|idem:)/, async () => {
      paid = await pay(orderId, 'p-one-transaction', { amount: 300, currency: 'EUR' });
    });
    expect(paid.status).toBe(201);
    // The library's one-statement form: the apply and the completed record together, no claim, no transaction.
    expect(statements.filter((s) => !/^idem:(sweep|mark_given_back)/.test(s.label))).toEqual([
      { label: 'orders:apply-charge', inTransaction: false },
    ]);
    const records = await recordOf('p-one-transaction');
    expect(records).toEqual([{ owner: expect.any(String), state: 'c', payload: expect.any(String) }]);
    expect(JSON.parse(records[0].payload)).toEqual(paid.body);
    expect(await orderOf(orderId)).toMatchObject({ status: 'awaiting_payment', paidAmount: 300 });
    expect(await chargeRows(orderId)).toBe(1);
  });

  it('applies the Charge of a released record through the claim path, once', async () => {
    const orderId = await newOrder(800);
    const first = await pay(orderId, 'p-released', { amount: 200, currency: 'EUR' });
    // As a failed owner leaves its key: released, no result; the Charge's row and amount went with its rollback.
    await pool().query('DELETE FROM order_payments WHERE order_id = $1', [orderId]);
    await pool().query('UPDATE orders SET paid_amount = 0 WHERE id = $1', [orderId]);
    await pool().query(
      `UPDATE idempotency_records SET state = 'r', payload = NULL WHERE operation = $1 AND key = 'p-released'`,
      [applyChargeOperation(TENANT)],
    );
    let again!: request.Response;
    const claimed = await transactionsWith('idem:claim', async () => {
      again = await pay(orderId, 'p-released', { amount: 200, currency: 'EUR' });
    });
    expect([again.status, again.text]).toEqual([201, first.text]);
    // The one statement met the record and wrote nothing; the claim took the released key over.
    expect(claimed).toEqual([
      ['BEGIN', 'idem:mark', 'idem:claim', 'orders:apply-charge:claimed', 'idem:tx_complete', 'COMMIT'],
    ]);
    await expectAppliedOnce('p-released', orderId, 200);
  });

  it('applies a Charge that payments replays (orders died before applying it), once', async () => {
    const orderId = await newOrder(800);
    // Payments already holds the Charge of this key: its first answer to orders is a replay.
    const charge = { id: randomUUID(), orderId, amount: 250, currency: 'EUR', status: 'succeeded' as const };
    payments.charges.set('p-replayed', { ...charge, providerChargeId: 'ch_replayed' });
    const paid = await pay(orderId, 'p-replayed', { amount: 250, currency: 'EUR' });
    expect([paid.status, paid.headers['idempotent-replayed'], paid.body.id]).toEqual([
      201,
      'true',
      charge.id,
    ]);
    await expectAppliedOnce('p-replayed', orderId, 250);
  });

  it('applies a Charge once when retries of its key race', async () => {
    const orderId = await newOrder(900);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => pay(orderId, 'p-race', { amount: 300, currency: 'EUR' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await orderOf(orderId)).toMatchObject({ paidAmount: 300 });
    expect(await chargeRows(orderId)).toBe(1);
  });

  it.each([
    ['an unknown order', 404, 'order_not_found', { amount: 1, currency: 'EUR' }, true],
    ['another currency', 422, 'currency_mismatch', { amount: 1, currency: 'USD' }, false],
    ['more than is owed', 422, 'payment_exceeds_balance', { amount: 501, currency: 'EUR' }, false],
  ])('refuses %s with %i %s and calls nobody', async (_label, status, code, body, unknown) => {
    const orderId = unknown ? randomUUID() : await newOrder(500);
    const res = await pay(orderId, `p-${randomUUID()}`, body);
    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(payments.calls).toEqual([]);
    if (!unknown) expect(await orderOf(orderId)).toMatchObject({ paidAmount: 0 });
  });

  it("checks the key before the business rules: a reused key gets payments' 422 idempotency_key_reused, not the rule", async () => {
    const orderId = await newOrder(500);
    await pay(orderId, 'p-reuse', { amount: 500, currency: 'EUR' });
    // Both a rule (nothing owed) and the key (other amount) refuse this one; the key comes first, and payments,
    // which holds the record of the charge, says so (orders relays it).
    const reused = await pay(orderId, 'p-reuse', { amount: 200, currency: 'EUR' });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(payments.calls).toHaveLength(2);
    expect(await orderOf(orderId)).toMatchObject({ paidAmount: 500 });
    expect(await chargeRows(orderId)).toBe(1);
  });

  it("relays payments' refusal as it came and applies nothing", async () => {
    const orderId = await newOrder(500);
    const refusal = {
      type: 'urn:retry-safe:problem:payment_rejected',
      title: 'Payment rejected',
      status: 422,
      detail: 'declined',
      code: 'payment_rejected',
    };
    payments.answer = {
      ok: false,
      status: 422,
      data: refusal,
      headers: { 'content-type': 'application/problem+json; charset=utf-8' },
      attempts: 1,
    };
    const res = await pay(orderId, 'p-refused', { amount: 100, currency: 'EUR' });
    expect([res.status, res.body]).toEqual([422, refusal]);
    expect(await orderOf(orderId)).toMatchObject({ paidAmount: 0, payments: [] });
  });
});
