/**
 * Issue 24: what one tenant can ask of the invoices is bounded. An order holds at most `INVOICE_MAX_VERSIONS`
 * versions (422 `invoice_version_limit` for a new one past it, even when they race), and a tenant makes at most
 * `INVOICE_RATE_LIMIT` requests per `INVOICE_RATE_WINDOW_MS` (429 `invoice_rate_limited` with `Retry-After`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_INTERNAL_AUTHORIZATION } from '@retry-safe/testing';
import request from 'supertest';
import { FakePayments, createOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

describe('invoice requests: the versions cap and the rate limit', () => {
  let world: OrdersWorld;

  const requestInvoice = (tenantId: string, orderId: string, version: number) =>
    request(world.app.getHttpServer())
      .post(`/v1/orders/${orderId}/invoices`)
      .set('x-tenant-id', tenantId)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .send({ version, email: 'ada@example.com' });
  const count = async (table: string, orderId: string): Promise<number> =>
    Number(
      (await world.pool.query(`SELECT count(*) FROM ${table} WHERE order_id = $1`, [orderId])).rows[0].count,
    );
  const newOrder = (tenantId: string) => createOrder(world.app, tenantId, { amount: 100, currency: 'EUR' });

  beforeAll(async () => {
    world = await startOrdersWorld(new FakePayments(), {
      INVOICE_MAX_VERSIONS: '3',
      INVOICE_RATE_LIMIT: '5',
      INVOICE_RATE_WINDOW_MS: '60000',
      INVOICE_RATE_KEY_PREFIX: `it-rate-${randomUUID().slice(0, 8)}:`,
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('refuses a new version past the cap with 422 invoice_version_limit; a recorded version still goes', async () => {
    const tenant = randomUUID();
    const orderId = await newOrder(tenant);
    for (const version of [1, 2, 3])
      expect((await requestInvoice(tenant, orderId, version)).status).toBe(202);

    const refused = await requestInvoice(tenant, orderId, 4);
    expect([refused.status, refused.headers['content-type'], refused.body.code]).toEqual([
      422,
      'application/problem+json; charset=utf-8',
      'invoice_version_limit',
    ]);
    expect((await requestInvoice(tenant, orderId, 2)).status).toBe(202);
    expect([await count('invoice_requests', orderId), await count('invoice_outbox', orderId)]).toEqual([
      3, 4,
    ]);
  });

  it('holds the cap when new versions race: 5 at once, cap 3, three recorded', async () => {
    const tenant = randomUUID();
    const orderId = await newOrder(tenant);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((version) => requestInvoice(tenant, orderId, version)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 202, 422, 422]);
    expect(await count('invoice_requests', orderId)).toBe(3);
  });

  it('answers 429 invoice_rate_limited with Retry-After past the tenant limit, and records nothing; others go on', async () => {
    const tenant = randomUUID();
    const orders = [await newOrder(tenant), await newOrder(tenant)];
    const admitted = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => requestInvoice(tenant, orders[n % 2] as string, n)),
    );
    expect(admitted.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);

    const limited = await requestInvoice(tenant, orders[0] as string, 1);
    expect([limited.status, limited.headers['content-type'], limited.body.code]).toEqual([
      429,
      'application/problem+json; charset=utf-8',
      'invoice_rate_limited',
    ]);
    // 5 per minute: the next one fits 12 s after the burst.
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(11);
    expect(retryAfter).toBeLessThanOrEqual(12);
    expect(
      (await count('invoice_outbox', orders[0] as string)) +
        (await count('invoice_outbox', orders[1] as string)),
    ).toBe(5);

    const other = randomUUID();
    expect((await requestInvoice(other, await newOrder(other), 1)).status).toBe(202);
  });
});
