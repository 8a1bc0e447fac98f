/**
 * Crash windows of the orders service: the process is SIGKILLed at a named fault point (`JOB orders/...`, as the
 * worker's `JOB invoices/...`) between two steps, restarted, and the client retries with the same key. Counts come
 * from the orders database and the provider's ledger, never from the answers alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import pg from 'pg';
import request from 'supertest';
import { waitFor } from '@retry-safe/testing';
import { newKey, newOrder, pay } from '../support/client.js';
import { DEMO_TENANTS, startStack, type Stack } from '@retry-safe/scenarios';

const crashAt = (point: string) => ({
  method: 'JOB',
  path: point,
  at: 'after-handler' as const,
  action: 'drop' as const,
  times: 1,
});

describe('orders killed inside its crash windows', () => {
  let stack: Stack;
  let db: pg.Pool;

  const createOrder = (key: string) =>
    request(stack.urls.gateway)
      .post('/v1/orders')
      .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
      .set('Idempotency-Key', key)
      .send({ amount: 4200, currency: 'EUR' });
  const readOrder = async (orderId: string) =>
    (
      await request(stack.urls.gateway)
        .get(`/v1/orders/${orderId}`)
        .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
    ).body;
  const requestInvoice = (orderId: string, version: number) =>
    request(stack.urls.gateway)
      .post(`/v1/orders/${orderId}/invoices`)
      .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
      .send({ version, email: 'ada@example.com' });
  const emailsOf = async (orderId: string) => {
    const ledger = (await (await fetch(`${stack.urls.provider}/v1/emails`)).json()) as {
      emails: Array<{ idempotencyKey: string }>;
    };
    return ledger.emails.filter((email) => email.idempotencyKey.includes(orderId.replaceAll('-', '')));
  };
  const count = async (sql: string, values: unknown[]) => Number((await db.query(sql, values)).rows[0].count);
  /** Waits for the process to die at its fault point, then starts it again on the same port. */
  const restartOrders = async () => {
    const [orders] = stack.processes('orders');
    if (orders === undefined) throw new Error('no orders process');
    await orders.kill('SIGKILL');
    await orders.start();
  };

  beforeAll(async () => {
    stack = await startStack({ worker: true });
    db = new pg.Pool({ connectionString: stack.databaseUrl });
  });
  afterAll(async () => {
    await db?.end();
    await stack?.close();
  });
  beforeEach(async () => {
    await stack.reset();
  });

  it('killed after committing the order, before answering: the retry gets the same order (one row)', async () => {
    const key = newKey('crash-create');
    await stack.setFaults('orders', [crashAt('orders/after-create-commit')]);

    const lost = await createOrder(key);
    expect([lost.status, lost.body.code]).toEqual([502, 'upstream_unavailable']);
    await restartOrders();

    const retry = await createOrder(key);
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    const rows = await db.query('SELECT id FROM orders WHERE tenant_id = $1 AND amount = 4200', [
      DEMO_TENANTS.a.tenantId,
    ]);
    expect(rows.rows.map((row: { id: string }) => row.id)).toEqual([retry.body.id]);
  });

  it('killed after payments charged, before applying the Charge: the retry applies it once (1 provider charge)', async () => {
    const orderId = await newOrder(stack);
    const key = newKey('crash-apply');
    await stack.setFaults('orders', [crashAt('orders/after-charge')]);

    const lost = await pay(stack, { key, orderId, amount: 700 });
    expect(lost.status).toBe(502);
    expect(await count('SELECT count(*) FROM order_payments WHERE order_id = $1', [orderId])).toBe(0);
    await restartOrders();

    const retry = await pay(stack, { key, orderId, amount: 700 });
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(await readOrder(orderId)).toMatchObject({
      paidAmount: 700,
      payments: [{ chargeId: retry.body.id }],
    });
    expect((await stack.providerCharges()).charges).toHaveLength(1);
  });

  it('the same crash, then two retries racing: the Charge is applied once', async () => {
    const orderId = await newOrder(stack);
    const key = newKey('crash-race');
    await stack.setFaults('orders', [crashAt('orders/after-charge')]);

    expect((await pay(stack, { key, orderId, amount: 900 })).status).toBe(502);
    await restartOrders();

    const [a, b] = await Promise.all([
      pay(stack, { key, orderId, amount: 900 }),
      pay(stack, { key, orderId, amount: 900 }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.text).toBe(a.text);
    expect(await count('SELECT count(*) FROM order_payments WHERE order_id = $1', [orderId])).toBe(1);
    expect(await readOrder(orderId)).toMatchObject({ paidAmount: 900 });
    expect((await stack.providerCharges()).charges).toHaveLength(1);
  });

  it.each([
    ['after committing the request, before publishing', 'orders/after-invoice-commit'],
    ['after publishing, before marking the row published', 'orders/after-publish'],
  ])('killed %s: the relay publishes it after the restart, one email', async (_label, point) => {
    const orderId = await newOrder(stack);
    await stack.setFaults('orders', [crashAt(point)]);

    // Orders dies at the point: before its 202 (after-invoice-commit) or in the relay just after it.
    await requestInvoice(orderId, 1);
    await waitFor('orders to die at its fault point', async () => {
      if ((await fetch(`${stack.urls.orders}/health/live`).catch(() => undefined)) !== undefined) {
        throw new Error('orders still answers');
      }
    });
    const pending = `SELECT count(*) FROM invoice_outbox WHERE order_id = $1 AND published_at IS NULL`;
    expect(await count(pending, [orderId])).toBe(1);
    await restartOrders();

    await waitFor('the relay to publish', async () => {
      if (await count(pending, [orderId])) throw new Error('not published yet');
    });
    const rows = await db.query('SELECT delivery_id FROM invoice_outbox WHERE order_id = $1', [orderId]);
    expect(rows.rows).toHaveLength(1);
    // One row, one job id: a second add of it is ignored by the queue, so the worker runs it once.
    const invoices = new Queue('invoices', {
      connection: { host: stack.redis.host, port: stack.redis.port },
    });
    try {
      const deliveryId: string = rows.rows[0].delivery_id;
      await waitFor(`job ${deliveryId} to complete`, async () => {
        const state = await invoices.getJobState(deliveryId);
        if (state !== 'completed') throw new Error(`job is ${state}`);
      });
      const mine = (await invoices.getJobs(['completed', 'waiting', 'active', 'delayed', 'failed'])).filter(
        (job) => job.data.orderId === orderId,
      );
      expect(mine.map((job) => job.id)).toEqual([deliveryId]);
    } finally {
      await invoices.close();
    }
    expect(await emailsOf(orderId)).toHaveLength(1);
  });
});
