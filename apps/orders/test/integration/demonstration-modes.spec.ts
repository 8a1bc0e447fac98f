import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { INVOICES_QUEUE } from '@retry-safe/contracts';
import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import { Queue } from 'bullmq';
import type pg from 'pg';
import request from 'supertest';
import { FakePayments, createOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';

/** Holds every apply 300 ms between its decision and its write, so racing retries overlap. */
const HOLD_APPLY = {
  rules: [
    {
      method: 'JOB',
      path: 'orders/before-apply-write',
      at: 'after-handler',
      action: 'delay',
      ms: 300,
    },
  ],
};

describe("orders' demonstration modes (the scenarios' wrong designs): only through /__config, never the default", () => {
  const payments = new FakePayments();
  const prefix = `demo-${randomUUID().slice(0, 8)}`;
  let world: OrdersWorld;
  let pool: pg.Pool;
  let app: INestApplication;
  let queue: Queue;

  const http = () => request(app.getHttpServer());
  const internal = <T extends request.Test>(test: T): T =>
    test.set('x-tenant-id', TENANT).set(TEST_INTERNAL_AUTHORIZATION) as T;
  const configure = (body: object) => http().put('/__config').send(body);
  const pay = (orderId: string, key: string, amount: number) =>
    internal(http().post(`/v1/orders/${orderId}/payments`))
      .set('Idempotency-Key', key)
      .send({ amount, currency: 'EUR' });
  const paidAmount = async (orderId: string): Promise<number> =>
    Number((await pool.query('SELECT paid_amount FROM orders WHERE id = $1', [orderId])).rows[0].paid_amount);

  beforeAll(async () => {
    world = await startOrdersWorld(payments, { FAULTS_ENABLED: 'true', BULLMQ_PREFIX: prefix });
    ({ app, pool } = world);
    queue = new Queue(INVOICES_QUEUE, { connection: { url: world.redis.url }, prefix });
  });
  afterAll(async () => {
    await queue?.close();
    await world?.close();
  });
  beforeEach(async () => {
    await http().delete('/__config').expect(204);
    await http().delete('/__faults').expect(204);
  });

  it('starts with the designs; refuses an unknown mode with 400 and changes nothing', async () => {
    const designs = {
      createRecord: 'transaction',
      applyCharge: 'unique-constraint',
      balanceCheck: 'reservation',
      invoicePublish: 'outbox',
    };
    expect((await http().get('/__config')).body).toEqual({ settings: designs, overrides: {} });
    const bad = await configure({ applyCharge: 'whatever', extra: 1 });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
    expect((await http().get('/__config')).body).toEqual({ settings: designs, overrides: {} });
  });

  it('read-then-write: racing retries of one key add the Charge twice; the design adds it once', async () => {
    await http().put('/__faults').send(HOLD_APPLY).expect(200);
    const race = async (): Promise<{ paid: number; rows: number }> => {
      const orderId = await createOrder(app, TENANT, { amount: 600, currency: 'EUR' });
      const key = `race-${randomUUID()}`;
      const answers = await Promise.all([pay(orderId, key, 600), pay(orderId, key, 600)]);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
      const rows = await pool.query('SELECT count(*) FROM order_payments WHERE order_id = $1', [orderId]);
      return { paid: await paidAmount(orderId), rows: Number(rows.rows[0].count) };
    };

    expect(await race()).toEqual({ paid: 600, rows: 1 });
    await configure({ applyCharge: 'read-then-write' }).expect(200);
    // The charge row is kept once by its primary key; the amount was added on each read's word.
    expect(await race()).toEqual({ paid: 1200, rows: 1 });
  });

  it('read-then-write, one retry at a time: applied once (the mode differs only when retries overlap)', async () => {
    await configure({ applyCharge: 'read-then-write' }).expect(200);
    // More than the payment is owed: the mode keeps no record of the key, so the balance rule judges every retry.
    const orderId = await createOrder(app, TENANT, { amount: 2_100, currency: 'EUR' });
    const key = `serial-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await pay(orderId, key, 700)).status).toBe(201);
    expect(await paidAmount(orderId)).toBe(700);
  });

  it('publish-after-commit: the job goes on the queue after the commit, its row born published (no relay)', async () => {
    await configure({ invoicePublish: 'publish-after-commit' }).expect(200);
    const orderId = await createOrder(app, TENANT);
    const res = await internal(http().post(`/v1/orders/${orderId}/invoices`)).send({
      version: 1,
      email: 'ada@example.com',
    });
    expect(res.status).toBe(202);
    expect((await queue.getJob(res.body.deliveryId))?.data.orderId).toBe(orderId);
    const rows = await pool.query(
      'SELECT delivery_id, published_at IS NOT NULL AS published FROM invoice_outbox WHERE order_id = $1',
      [orderId],
    );
    expect(rows.rows).toEqual([{ delivery_id: res.body.deliveryId, published: true }]);
    const order = await internal(http().get(`/v1/orders/${orderId}`));
    expect(order.body.invoices).toEqual([{ version: 1, email: 'ada@example.com', status: 'published' }]);
  });

  it('createRecord=redis: the record is a Redis key under the queue prefix; without a crash the retry replays', async () => {
    await configure({ createRecord: 'redis' }).expect(200);
    const key = `redis-record-${randomUUID()}`;
    const create = () =>
      internal(http().post('/v1/orders')).set('Idempotency-Key', key).send({ amount: 4321, currency: 'EUR' });
    const first = await create();
    const retry = await create();
    expect([first.status, retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect(retry.text).toBe(first.text);
    const redis = world.redis.client();
    try {
      const operation = `order.create.${TENANT.replaceAll('-', '')}`;
      expect(await redis.exists(`${prefix}:demo-idem:${operation}:${key}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const records = await pool.query('SELECT count(*) FROM idempotency_records WHERE key = $1', [key]);
    expect(Number(records.rows[0].count)).toBe(0);
  });
});

describe('orders without FAULTS_ENABLED', () => {
  it('has no /__config: the demonstration modes cannot be switched on', async () => {
    const world = await startOrdersWorld(new FakePayments());
    try {
      expect(
        (await request(world.app.getHttpServer()).put('/__config').send({ createRecord: 'redis' })).status,
      ).toBe(404);
    } finally {
      await world.close();
    }
  });
});
