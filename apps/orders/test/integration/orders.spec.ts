import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { INVOICES_QUEUE, InvoiceJobSchema, MAX_INVOICE_VERSION } from '@retry-safe/contracts';
import { TEST_INTERNAL_AUTHORIZATION, TEST_INTERNAL_TOKEN } from '@retry-safe/testing';
import { expectProblemAnswer } from '@retry-safe/testing/jest';
import { Queue } from 'bullmq';
import request from 'supertest';
import { OutboxRelay } from '../../src/invoices/outbox-relay.service.js';
import { FakePayments, createOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';
const ORDER = '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978';

describe('orders in-process on a real Redis and Postgres, payments replaced', () => {
  const payments = new FakePayments();
  const prefix = `it-orders-${randomUUID().slice(0, 8)}`;
  let world: OrdersWorld;
  let app: INestApplication;
  let queue: Queue;
  const post = (path: string) =>
    request(app.getHttpServer())
      .post(`/v1/orders/${ORDER}${path}`)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .set('x-tenant-id', TENANT)
      .set('x-request-id', 'req-1');

  beforeAll(async () => {
    world = await startOrdersWorld(payments, { BULLMQ_PREFIX: prefix });
    app = world.app;
    queue = new Queue(INVOICES_QUEUE, { connection: { url: world.redis.url }, prefix });
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await world?.close();
  });
  beforeEach(() => {
    payments.calls.length = 0;
    payments.answer = undefined;
  });

  it('turns a payment into the payment command with the decoded key and the chain, and relays the answer', async () => {
    // The order must exist now (orders owns it), and a 201 must carry a Charge (orders applies it).
    const orderId = await createOrder(app, TENANT);
    const charge = {
      id: randomUUID(),
      orderId,
      amount: 1999,
      currency: 'EUR',
      status: 'succeeded',
      providerChargeId: 'ch_1',
    };
    payments.answer = {
      ok: true,
      status: 201,
      data: charge,
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
      attempts: 1,
    };
    const res = await request(app.getHttpServer())
      .post(`/v1/orders/${orderId}/payments`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .set('x-request-id', 'req-1')
      .set('Idempotency-Key', '"pay order 42"')
      .set('x-request-deadline', String(Date.now() + 5_000))
      .send({ amount: 1999, currency: 'EUR' });

    expect([res.status, res.body, res.headers['idempotent-replayed']]).toEqual([201, charge, 'true']);
    expect(payments.calls).toEqual([
      {
        command: { tenantId: TENANT, orderId, amount: 1999, currency: 'EUR' },
        key: 'pay order 42',
        chain: { requestId: 'req-1', deadline: expect.any(Number) },
      },
    ]);
  });

  it.each([
    ['no key', {}, 'idempotency_key_missing'],
    ['a key the coordinator refuses', { 'Idempotency-Key': 'order:42' }, 'idempotency_key_invalid'],
    ['no tenant', { 'Idempotency-Key': 'k', 'x-tenant-id': '' }, 'validation_failed'],
  ])('refuses %s with 400 and calls nobody', async (_label, headers, code) => {
    const res = await post('/payments').set(headers).send({ amount: 1, currency: 'EUR' });
    expect([res.status, res.body.code]).toEqual([400, code]);
    expect(payments.calls).toEqual([]);
  });

  it.each([
    ['no internal credential', undefined],
    ['a wrong internal credential', 'Bearer wrong-internal-token-0123456789abcdef'],
    ['the internal token in another scheme', `Basic ${TEST_INTERNAL_TOKEN}`],
  ])('refuses a payment with %s (401, before the body is read) and calls nobody', async (_label, auth) => {
    const req = request(app.getHttpServer())
      .post(`/v1/orders/${ORDER}/payments`)
      .set('x-tenant-id', TENANT)
      .set('Idempotency-Key', 'k-untrusted')
      .set('Content-Type', 'application/json');
    const res = await (auth === undefined ? req : req.set('Authorization', auth)).send('{bad');
    expectProblemAnswer(res, 401, 'unauthorized');
    expect(payments.calls).toEqual([]);
  });

  it('refuses an invoice request without the internal credential, and publishes nothing', async () => {
    const before = await queue.count();
    const res = await request(app.getHttpServer())
      .post(`/v1/orders/${ORDER}/invoices`)
      .set('x-tenant-id', TENANT)
      .send({ version: 2, email: 'ada@example.com' });
    expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
    expect(await queue.count()).toBe(before);
  });

  it('answers its probes without a credential', async () => {
    const server = app.getHttpServer();
    expect((await request(server).get('/health/live')).status).toBe(200);
    expect((await request(server).get('/health')).status).toBe(200);
  });

  it('publishes one invoice job in the contract shape, with the delivery id it answers', async () => {
    // The order must exist now, and the job reaches the queue through the outbox relay.
    const orderId = await createOrder(app, TENANT);
    const res = await request(app.getHttpServer())
      .post(`/v1/orders/${orderId}/invoices`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .send({ version: 2, email: 'ada@example.com' });
    await app.get(OutboxRelay).drain();

    expect(res.status).toBe(202);
    const job = await queue.getJob(res.body.deliveryId);
    expect(job?.data).toEqual({
      deliveryId: res.body.deliveryId,
      tenantId: TENANT,
      orderId,
      invoiceVersion: 2,
      email: 'ada@example.com',
    });
    expect(InvoiceJobSchema.safeParse(job?.data).success).toBe(true);
  });

  // The defect of the copied contracts: orders' copy had no upper bounds, so it enqueued jobs the worker refuses
  // forever. The route now validates with the worker's schema: nothing is enqueued.
  it.each([
    ['a version over the maximum', { version: MAX_INVOICE_VERSION + 1, email: 'ada@example.com' }],
    ['an email over 254 characters', { version: 1, email: `${'a'.repeat(243)}@example.com` }],
  ])('refuses %s with 400 and enqueues nothing', async (_label, body) => {
    const before = await queue.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed');
    const res = await post('/invoices').send(body);
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    expect(await queue.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed')).toBe(
      before,
    );
  });

  it('is ready while its Redis and its Postgres answer', async () => {
    const res = await request(app.getHttpServer()).get('/health');
    expect([res.status, res.body]).toEqual([200, { status: 'ok', redis: 'up', postgres: 'up' }]);
  });
});
