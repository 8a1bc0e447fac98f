/**
 * Issue 24: published outbox rows are deleted after `OUTBOX_RETENTION_MS`, in batches until one comes back short;
 * the rows still within the retention stay, and the order still reads its invoices as published.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INVOICES_QUEUE } from '@retry-safe/contracts';
import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import { Queue } from 'bullmq';
import request from 'supertest';
import { OutboxRelay } from '../../src/invoices/outbox-relay.service.js';
import { OutboxRetention } from '../../src/invoices/outbox-retention.service.js';
import { FakePayments, createOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';

describe('the outbox retention', () => {
  let world: OrdersWorld;
  let queue: Queue;
  const prefix = `it-retention-${randomUUID().slice(0, 8)}`;

  const requestInvoice = (orderId: string, version: number) =>
    request(world.app.getHttpServer())
      .post(`/v1/orders/${orderId}/invoices`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .send({ version, email: 'ada@example.com' });
  const outboxCount = async (orderId: string): Promise<number> =>
    Number(
      (await world.pool.query('SELECT count(*) FROM invoice_outbox WHERE order_id = $1', [orderId])).rows[0]
        .count,
    );

  beforeAll(async () => {
    world = await startOrdersWorld(new FakePayments(), {
      BULLMQ_PREFIX: prefix,
      OUTBOX_RETENTION_MS: '60000',
      // The sweep under test is called here; the timer's would only race it.
      OUTBOX_CLEANUP_INTERVAL_MS: '86400000',
      OUTBOX_CLEANUP_BATCH_SIZE: '2',
    });
    queue = new Queue(INVOICES_QUEUE, { connection: { url: world.redis.url }, prefix });
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await world?.close();
  });

  it('deletes every published row past the retention in batches until a short one, and keeps the rest', async () => {
    const old = await createOrder(world.app, TENANT, { amount: 100, currency: 'EUR' });
    const fresh = await createOrder(world.app, TENANT, { amount: 100, currency: 'EUR' });
    for (let version = 1; version <= 5; version++)
      expect((await requestInvoice(old, version)).status).toBe(202);
    expect((await requestInvoice(fresh, 1)).status).toBe(202);
    await world.app.get(OutboxRelay).drain();
    // Published an hour ago: past the 60 s retention. The fresh order's row is within it.
    await world.pool.query(
      `UPDATE invoice_outbox SET published_at = now() - interval '1 hour' WHERE order_id = $1`,
      [old],
    );

    // Five rows, batches of two: 2 + 2 + 1, the short batch ends the sweep.
    expect(await world.app.get(OutboxRetention).sweep()).toBe(5);
    expect([await outboxCount(old), await outboxCount(fresh)]).toEqual([0, 1]);
    expect(await world.app.get(OutboxRetention).sweep()).toBe(0);

    const order = await request(world.app.getHttpServer())
      .get(`/v1/orders/${old}`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION);
    expect(order.body.invoices).toEqual(
      [1, 2, 3, 4, 5].map((version) => ({ version, email: 'ada@example.com', status: 'published' })),
    );
  });
});
