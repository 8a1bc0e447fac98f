import { TEST_INTERNAL_AUTHORIZATION, waitFor } from '@retry-safe/testing';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { ServiceResponse } from '@retry-safe/http-client';
import type pg from 'pg';
import request from 'supertest';
import {
  PaymentReservations,
  ReservationOutcome,
} from '../../src/payments/payment-reservations.repository.js';
import { FakePayments, createOrder, useOrdersWorld } from './orders.app.js';

const TENANT = 'b0000000-0000-4000-8000-00000000000b';

const problemAnswer = (status: number, code: string): ServiceResponse<unknown> => ({
  ok: false,
  status,
  data: { type: `urn:retry-safe:problem:${code}`, status, code },
  headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  attempts: 1,
});

describe('paying an order: the amount is reserved before the charge, so no payment pushes it past its amount', () => {
  const payments = new FakePayments();
  // The sweep every 200 ms, so the test of an expired reservation waits for it, not for a minute.
  const world = useOrdersWorld(payments, { RESERVATION_SWEEP_MS: '200' });
  const app = (): INestApplication => world().app;
  const pool = (): pg.Pool => world().pool;

  const newOrder = (amount: number): Promise<string> =>
    createOrder(app(), TENANT, { amount, currency: 'EUR' });
  const pay = (orderId: string, key: string, amount: number) =>
    request(app().getHttpServer())
      .post(`/v1/orders/${orderId}/payments`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .set('Idempotency-Key', key)
      .send({ amount, currency: 'EUR' });
  /** The order's row as the database holds it, and its reservations (key and amount). */
  const stateOf = async (orderId: string) => {
    const order = await pool().query<{ paid: string; reserved: string; status: string }>(
      'SELECT paid_amount AS paid, reserved_amount AS reserved, status FROM orders WHERE id = $1',
      [orderId],
    );
    const held = await pool().query<{ key: string; amount: string }>(
      'SELECT key, amount FROM order_payment_reservations WHERE order_id = $1 ORDER BY key',
      [orderId],
    );
    const row = order.rows[0];
    return {
      paid: Number(row?.paid),
      reserved: Number(row?.reserved),
      status: row?.status,
      reservations: held.rows.map((r) => [r.key, Number(r.amount)]),
    };
  };
  const calledKeys = (): string[] => payments.calls.map((call) => call.key);

  beforeEach(() => {
    payments.calls.length = 0;
    payments.answer = undefined;
    payments.hold = undefined;
    payments.failure = undefined;
  });

  it('five parallel payments of the whole order, distinct keys: one charged, four 409 payment_in_progress', async () => {
    const orderId = await newOrder(5000);
    let open!: () => void;
    // The first charge stays in flight until every other payment has answered.
    payments.hold = new Promise((resolve) => (open = resolve));
    const keys = Array.from({ length: 5 }, (_, i) => `full-${i}-${randomUUID()}`);
    const pending = keys.map((key) => pay(orderId, key, 5000).then((res) => res));
    const settled = await waitFor('the four refusals', async () => {
      if (payments.calls.length !== 1) throw new Error(`${payments.calls.length} charges in flight`);
      return payments.calls[0]!.key;
    });
    const others = await Promise.all(pending.filter((_, i) => keys[i] !== settled));
    for (const res of others) {
      expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([
        409,
        'payment_in_progress',
        '1',
      ]);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(await stateOf(orderId)).toMatchObject({
      paid: 0,
      reserved: 5000,
      reservations: [[settled, 5000]],
    });
    open();
    const won = await pending[keys.indexOf(settled)]!;
    expect(won.status).toBe(201);
    expect(await stateOf(orderId)).toEqual({ paid: 5000, reserved: 0, status: 'paid', reservations: [] });
    // Nothing is owed now: a sixth is refused for good, nothing reserved.
    const late = await pay(orderId, `late-${randomUUID()}`, 5000);
    expect([late.status, late.body.code, late.headers['retry-after']]).toEqual([
      422,
      'payment_exceeds_balance',
      undefined,
    ]);
    expect(calledKeys()).toEqual([settled]);
  });

  it('ten parallel payments of 1000 on 5000: five charged, the others refused, never more than 5000', async () => {
    const orderId = await newOrder(5000);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => pay(orderId, `tenth-${i}-${randomUUID()}`, 1000)),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect([409, 422]).toContain(res.status);
      expect(['payment_in_progress', 'payment_exceeds_balance']).toContain(res.body.code);
    }
    expect(payments.calls).toHaveLength(5);
    expect(await stateOf(orderId)).toEqual({ paid: 5000, reserved: 0, status: 'paid', reservations: [] });
  });

  it('a definite refusal from payments (4xx) gives the reservation back: the next payment fits', async () => {
    const orderId = await newOrder(1000);
    payments.answer = problemAnswer(422, 'payment_rejected');
    const refused = await pay(orderId, `declined-${randomUUID()}`, 1000);
    expect([refused.status, refused.body.code]).toEqual([422, 'payment_rejected']);
    expect(await stateOf(orderId)).toMatchObject({ paid: 0, reserved: 0, reservations: [] });
    payments.answer = undefined;
    expect((await pay(orderId, `next-${randomUUID()}`, 1000)).status).toBe(201);
    expect(await stateOf(orderId)).toMatchObject({ paid: 1000, reserved: 0 });
  });

  it.each([
    ['a 503', () => (payments.answer = problemAnswer(503, 'upstream_unavailable')), 503],
    [
      'a 409 (the key in flight at payments)',
      () => (payments.answer = problemAnswer(409, 'payment_in_progress')),
      409,
    ],
    ['no answer (a timeout)', () => (payments.failure = new Error('socket hang up')), 500],
  ])(
    'an uncertain outcome (%s) keeps the reservation; the same key resolves it, without reserving twice',
    async (_label, fail, status) => {
      const orderId = await newOrder(1000);
      const key = `uncertain-${randomUUID()}`;
      fail();
      expect((await pay(orderId, key, 600)).status).toBe(status);
      expect(await stateOf(orderId)).toMatchObject({ paid: 0, reserved: 600, reservations: [[key, 600]] });
      // Another payment that fits what is owed but not beside the reservation: it may fit later.
      const other = await pay(orderId, `other-${randomUUID()}`, 600);
      expect([other.status, other.body.code, other.headers['retry-after']]).toEqual([
        409,
        'payment_in_progress',
        '1',
      ]);
      payments.answer = undefined;
      payments.failure = undefined;
      // 600 + 600 > 1000: had the retry reserved again, it would be refused.
      const retry = await pay(orderId, key, 600);
      expect(retry.status).toBe(201);
      expect(await stateOf(orderId)).toMatchObject({ paid: 600, reserved: 0, reservations: [] });
      expect(calledKeys().filter((called) => called === key)).toHaveLength(2);
    },
  );

  it("a replay of an applied payment reserves for a moment and gives it back: the order's room is unchanged", async () => {
    const orderId = await newOrder(1000);
    const key = `replayed-${randomUUID()}`;
    const first = await pay(orderId, key, 400);
    const again = await pay(orderId, key, 400);
    expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([
      201,
      first.text,
      'true',
    ]);
    expect(await stateOf(orderId)).toMatchObject({ paid: 400, reserved: 0, reservations: [] });
    expect((await pay(orderId, `rest-${randomUUID()}`, 600)).status).toBe(201);
  });

  it("a retry whose key's reservation another attempt resolves between two statements gets it as held, not an error", async () => {
    const orderId = await newOrder(5000);
    const key = `churned-${randomUUID()}`;
    // Another attempt of the key holds its reservation when this one reserves, and resolves it (its replay gives it
    // back) before any later statement of this one: what a burst of one key's retries did on two busy cores, where
    // orders read the key's row in a second statement, found it gone three times and answered 500.
    const other = pool();
    const hold = () =>
      other.query(
        `INSERT INTO order_payment_reservations (tenant_id, key, order_id, amount, expires_at)
          VALUES ($1, $2, $3, 700, now() + interval '1 minute') ON CONFLICT DO NOTHING`,
        [TENANT, key, orderId],
      );
    const resolve = () =>
      other.query('DELETE FROM order_payment_reservations WHERE tenant_id = $1 AND key = $2', [TENANT, key]);
    const churned = {
      connect: async () => {
        const client = await other.connect();
        let reserving = false;
        const query = async (config: unknown, values?: unknown[]) => {
          const name = (config as { name?: string } | null)?.name;
          if (name === 'reservations:reserve') await hold();
          else if (reserving && name !== undefined) await resolve();
          reserving ||= name === 'reservations:reserve';
          return client.query(config as pg.QueryConfig, values);
        };
        return Object.assign(Object.create(client) as pg.PoolClient, { query });
      },
    } as unknown as pg.Pool;

    const answer = await new PaymentReservations(churned).reserve(
      { tenantId: TENANT, key },
      orderId,
      700,
      60_000,
    );
    expect(answer).toEqual({ outcome: ReservationOutcome.Held, orderId, amount: 700 });
    expect(await stateOf(orderId)).toMatchObject({ reserved: 0, reservations: [[key, 700]] });
    await resolve();
  });

  it("the sweep releases a reservation whose key's record expired, and only that one", async () => {
    const orderId = await newOrder(1000);
    payments.answer = problemAnswer(504, 'upstream_timeout');
    const [expired, live] = [`expired-${randomUUID()}`, `live-${randomUUID()}`];
    await pay(orderId, expired, 300);
    await pay(orderId, live, 200);
    expect(await stateOf(orderId)).toMatchObject({ reserved: 500 });
    // As if IDEMPOTENCY_TTL_MS had passed for the first key (its records in orders and payments are gone too).
    await pool().query(
      `UPDATE order_payment_reservations SET expires_at = now() - interval '1 second' WHERE key = $1`,
      [expired],
    );
    await waitFor('the sweep', async () => {
      const state = await stateOf(orderId);
      if (state.reserved !== 200) throw new Error(`reserved ${state.reserved}`);
    });
    expect(await stateOf(orderId)).toMatchObject({ paid: 0, reserved: 200, reservations: [[live, 200]] });
    payments.answer = undefined;
    expect((await pay(orderId, `after-${randomUUID()}`, 800)).status).toBe(201);
    expect(await stateOf(orderId)).toMatchObject({ paid: 800, reserved: 200 });
  });
});
