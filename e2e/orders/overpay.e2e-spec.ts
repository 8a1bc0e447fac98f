/**
 * Payments in parallel on one order, each with its own key (tabs, not retries), through the gateway on the real
 * chain: the overpay table from its definition, then the counts where they live (the provider's ledger, the
 * order's rows). No order is ever charged or paid past its amount.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import request from 'supertest';
import {
  DEMO_TENANTS,
  OVERPAY_AMOUNT,
  OVERPAY_TABS,
  createdOrderId,
  expectedTable,
  overpayScenario,
  runRow,
  stackTarget,
  type OverpayData,
  type ScenarioTarget,
} from '@retry-safe/scenarios';
import { newKey, pay } from '../support/client.js';
import { rowOf } from '../support/scenario-rows.js';
import { useStack } from '../support/stack.js';

describe('overpay: payments in parallel never take an order past its amount', () => {
  let db: pg.Pool | undefined;
  // Before the stack's own afterAll (hooks run in order): the pool ends while its database is still there.
  afterAll(async () => {
    await db?.end();
  });
  const stack = useStack();
  let target: ScenarioTarget;

  beforeAll(() => {
    target = stackTarget(stack());
    db = new pg.Pool({ connectionString: stack().databaseUrl });
  });

  const orderOf = async (amount: number): Promise<string> =>
    createdOrderId(
      await request(stack().urls.gateway)
        .post('/v1/orders')
        .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
        .set('Idempotency-Key', newKey('order'))
        .send({ amount, currency: 'EUR' }),
    );
  /** The order's row (paid, reserved) and what the provider charged under the given keys. */
  const effects = async (orderId: string, keys: readonly string[]) => {
    const { rows } = await db!.query<{ paid: string; reserved: string }>(
      'SELECT paid_amount AS paid, reserved_amount AS reserved FROM orders WHERE id = $1',
      [orderId],
    );
    const ledger = await stack().providerCharges();
    const ours = ledger.charges.filter((c) => keys.some((key) => c.idempotencyKey.endsWith(`.${key}`)));
    return {
      paid: Number(rows[0]?.paid),
      reserved: Number(rows[0]?.reserved),
      charges: ours.length,
      charged: ours.reduce((sum, c) => sum + c.amount, 0),
    };
  };

  it('documents the table the runner prints', () => {
    expect(expectedTable(overpayScenario)).toEqual([
      ['read-then-write', '5 × 201', '5', '25000', '25000'],
      ['reservation', '1 × 201, 4 × 409 payment_in_progress', '1', '5000', '5000'],
    ]);
  });

  it.each([
    ['read-then-write', OVERPAY_TABS],
    ['reservation', 1],
  ])(
    '%s: %i provider charge(s) for five tabs, counted in the ledger and the order',
    async (design, charges) => {
      const result = await runRow(overpayScenario, rowOf(overpayScenario, design), target);
      const { orderId, keys } = result.data as OverpayData;

      expect(result.measured).toEqual(result.expected);
      expect(await effects(orderId, keys)).toEqual({
        paid: charges * OVERPAY_AMOUNT,
        reserved: 0,
        charges,
        charged: charges * OVERPAY_AMOUNT,
      });
    },
  );

  it('five parallel full payments: exactly one 201, the others 409 or 422; 5000 charged, paidAmount 5000', async () => {
    const orderId = await orderOf(5000);
    const keys = Array.from({ length: 5 }, () => newKey('tab'));
    const answers = await Promise.all(keys.map((key) => pay(stack(), { orderId, key, amount: 5000 })));

    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect([
        [409, 'payment_in_progress'],
        [422, 'payment_exceeds_balance'],
      ]).toContainEqual([res.status, res.body.code]);
      if (res.status === 409) expect(res.headers['retry-after']).toBe('1');
    }
    expect(await effects(orderId, keys)).toEqual({ paid: 5000, reserved: 0, charges: 1, charged: 5000 });
    const read = await request(stack().urls.gateway)
      .get(`/v1/orders/${orderId}`)
      .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`);
    expect(read.body).toMatchObject({ status: 'paid', amount: 5000, paidAmount: 5000 });
  });

  it('ten parallel payments of 1000 on 5000: never more than 5000 charged or paid', async () => {
    const orderId = await orderOf(5000);
    const keys = Array.from({ length: 10 }, () => newKey('tenth'));
    const answers = await Promise.all(keys.map((key) => pay(stack(), { orderId, key, amount: 1000 })));

    const won = answers.filter((res) => res.status === 201).length;
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect(['payment_in_progress', 'payment_exceeds_balance']).toContain(res.body.code);
    }
    const after = await effects(orderId, keys);
    expect(after).toEqual({ paid: won * 1000, reserved: 0, charges: won, charged: won * 1000 });
    expect(after.charged).toBeLessThanOrEqual(5000);
    // What the refused tabs could not pay is still owed, and payable: the order ends paid in full, never beyond.
    for (let i = won; i < 5; i++) expect((await pay(stack(), { orderId, amount: 1000 })).status).toBe(201);
    expect((await pay(stack(), { orderId, amount: 1000 })).body.code).toBe('payment_exceeds_balance');
    expect((await effects(orderId, [])).paid).toBe(5000);
  });
});
