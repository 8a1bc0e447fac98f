import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { INVOICES_QUEUE } from '@retry-safe/contracts';
import { Queue } from 'bullmq';
import type pg from 'pg';
import request from 'supertest';
import { OutboxRelay } from '../../src/invoices/outbox-relay.service.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import {
  FakePayments,
  createOrder,
  createOrdersApp,
  startOrdersWorld,
  type OrdersWorld,
} from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';
const published = async (app: INestApplication): Promise<number> =>
  (await app.get(MetricsService).invoicesEnqueued.get()).values[0]?.value ?? 0;

describe('invoice requests through the outbox', () => {
  let world: OrdersWorld;
  let replica: INestApplication;
  let pool: pg.Pool;
  let queue: Queue;
  const prefix = `it-outbox-${randomUUID().slice(0, 8)}`;

  const newOrder = (app: INestApplication): Promise<string> =>
    createOrder(app, TENANT, { amount: 100, currency: 'EUR' });
  const requestInvoice = (app: INestApplication, orderId: string, body: object) =>
    request(app.getHttpServer())
      .post(`/v1/orders/${orderId}/invoices`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .send(body);
  const outboxRows = async (orderId: string) =>
    (await pool.query('SELECT delivery_id, published_at FROM invoice_outbox WHERE order_id = $1', [orderId]))
      .rows as Array<{ delivery_id: string; published_at: Date | null }>;

  beforeAll(async () => {
    world = await startOrdersWorld(new FakePayments(), { BULLMQ_PREFIX: prefix });
    pool = world.pool;
    // A second orders replica on the same database and queue: two relays at once.
    replica = await createOrdersApp(new FakePayments(), {
      REDIS_URL: world.redis.url,
      DATABASE_URL: world.postgres.url,
      BULLMQ_PREFIX: prefix,
    });
    queue = new Queue(INVOICES_QUEUE, { connection: { url: world.redis.url }, prefix });
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await replica?.close();
    await world?.close();
  });

  it('records one request per version and one delivery per call, published by the relay with its delivery id', async () => {
    const orderId = await newOrder(world.app);
    const first = await requestInvoice(world.app, orderId, { version: 1, email: 'ada@example.com' });
    const second = await requestInvoice(world.app, orderId, { version: 1, email: 'ada@example.com' });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.deliveryId).not.toBe(first.body.deliveryId);
    await Promise.all([world.app.get(OutboxRelay).drain(), replica.get(OutboxRelay).drain()]);

    const rows = await outboxRows(orderId);
    expect(rows.map((row) => row.delivery_id).sort()).toEqual(
      [first.body.deliveryId, second.body.deliveryId].sort(),
    );
    expect(rows.every((row) => row.published_at !== null)).toBe(true);
    for (const { body } of [first, second])
      expect((await queue.getJob(body.deliveryId))?.data.orderId).toBe(orderId);
    const order = await request(world.app.getHttpServer())
      .get(`/v1/orders/${orderId}`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION);
    expect(order.body.invoices).toEqual([{ version: 1, email: 'ada@example.com', status: 'published' }]);
  });

  it('refuses the same version to another address with 422 invoice_version_conflict and adds nothing', async () => {
    const orderId = await newOrder(world.app);
    await requestInvoice(world.app, orderId, { version: 3, email: 'ada@example.com' });
    const other = await requestInvoice(world.app, orderId, { version: 3, email: 'mallory@example.com' });
    expect([other.status, other.body.code]).toEqual([422, 'invoice_version_conflict']);
    expect(await outboxRows(orderId)).toHaveLength(1);
  });

  it('refuses an unknown order (404 order_not_found) and adds nothing', async () => {
    const orderId = randomUUID();
    const res = await requestInvoice(world.app, orderId, { version: 1, email: 'ada@example.com' });
    expect([res.status, res.body.code]).toEqual([404, 'order_not_found']);
    expect(await outboxRows(orderId)).toHaveLength(0);
  });

  it('publishes every row once with two relays running: the published counts add up to the rows', async () => {
    const before = (await published(world.app)) + (await published(replica));
    const orderId = await newOrder(world.app);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        requestInvoice(i % 2 === 0 ? world.app : replica, orderId, {
          version: i + 1,
          email: 'ada@example.com',
        }),
      ),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    await Promise.all([world.app.get(OutboxRelay).drain(), replica.get(OutboxRelay).drain()]);

    const rows = await outboxRows(orderId);
    expect(rows).toHaveLength(40);
    expect(rows.every((row) => row.published_at !== null)).toBe(true);
    expect((await published(world.app)) + (await published(replica)) - before).toBe(40);
  });
});
