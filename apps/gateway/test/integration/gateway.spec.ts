import { describe, expect, it } from '@jest/globals';
import { MetricsListener } from '@retry-safe/app-shell/telemetry';
import { AdminListener } from '@retry-safe/app-shell/admin';
import { idempotencyKeyDigest } from '@retry-safe/contracts';
import { expectProblemAnswer } from '@retry-safe/testing/jest';
import request from 'supertest';
import { TENANT, TOKEN, useGatewayApp } from './gateway.app.js';

const ORDER = '6C1F4B6E-8B1E-4C3A-9F55-2D3C4B5A6978';
const PAYMENT = `/v1/orders/${ORDER}/payments`;
const INVOICE = `/v1/orders/${ORDER}/invoices`;

describe('gateway in-process, orders replaced', () => {
  const { orders, app } = useGatewayApp();
  const pay = (key?: string) => {
    const req = request(app().getHttpServer()).post(PAYMENT).set('Authorization', `Bearer ${TOKEN}`);
    return key === undefined ? req : req.set('Idempotency-Key', key);
  };

  it('forwards a payment with the decoded key and the tenant, and relays the answer', async () => {
    orders.answer = {
      ok: true,
      status: 201,
      data: { id: 'c-1', amount: 1999 },
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
      attempts: 1,
    };
    const res = await pay('"pay order 42"').send({ amount: 1999, currency: 'EUR' });

    expect([res.status, res.body]).toEqual([201, { id: 'c-1', amount: 1999 }]);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(orders.calls).toEqual([
      {
        kind: 'payment',
        payment: { orderId: ORDER.toLowerCase(), amount: 1999, currency: 'EUR' },
        key: 'pay order 42',
        caller: { tenantId: TENANT, requestId: res.headers['x-request-id'] },
      },
    ]);
  });

  it('relays a problem from orders with its status, media type and Retry-After', async () => {
    orders.answer = {
      ok: false,
      status: 409,
      data: { status: 409, code: 'payment_in_progress' },
      headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
      attempts: 1,
    };
    const res = await pay('k-409').send({ amount: 1, currency: 'EUR' });
    expect([res.status, res.body, res.headers['retry-after']]).toEqual([
      409,
      { status: 409, code: 'payment_in_progress' },
      '1',
    ]);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each([
    ['no token', { authorization: undefined, key: 'k' }, 401, 'unauthorized'],
    ['an unknown token', { authorization: 'Bearer not-a-known-token-at-all', key: 'k' }, 401, 'unauthorized'],
    ['no key', { key: undefined }, 400, 'idempotency_key_missing'],
    ['a key with a colon', { key: 'order:42' }, 400, 'idempotency_key_invalid'],
    ['12 000 spaces inside the key', { key: `a${' '.repeat(12_000)}b` }, 400, 'idempotency_key_invalid'],
  ])('refuses %s, and calls nobody', async (_label, given, status, code) => {
    let req = request(app().getHttpServer()).post(PAYMENT);
    const authorization = 'authorization' in given ? given.authorization : `Bearer ${TOKEN}`;
    if (authorization !== undefined) req = req.set('Authorization', authorization);
    if (given.key !== undefined) req = req.set('Idempotency-Key', given.key);
    const res = await req.send({ amount: 1, currency: 'EUR' });

    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(orders.calls).toEqual([]);
  });

  it('refuses a repeated Idempotency-Key header', async () => {
    // superagent sends an array as one field line per value; its types only allow that for Cookie.
    const twice = ['k-1', 'k-2'] as unknown as string;
    const res = await pay().set('Idempotency-Key', twice).send({ amount: 1, currency: 'EUR' });
    expect([res.status, res.body.code]).toEqual([400, 'idempotency_key_invalid']);
    expect(res.body.detail).toMatch(/must appear once/);
    expect(orders.calls).toEqual([]);
  });

  it('tells a client without a key what to do', async () => {
    const res = await pay().send({ amount: 1, currency: 'EUR' });
    expect(res.body.detail).toBe(
      'The Idempotency-Key header is required: send a unique key per payment and reuse it on every retry',
    );
  });

  it.each([
    ['a currency nobody is charged in', { amount: 1, currency: 'XXX' }, 400, 'validation_failed'],
    ['an amount over 8 digits', { amount: 100_000_000, currency: 'EUR' }, 400, 'validation_failed'],
    [
      'a prototype key',
      JSON.parse('{"amount":1,"currency":"EUR","constructor":1}'),
      400,
      'validation_failed',
    ],
  ])('refuses %s', async (_label, body, status, code) => {
    const res = await pay('k-body').send(body);
    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(orders.calls).toEqual([]);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await pay('k-415').set('Content-Type', 'text/plain').send('amount=1');
    expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
  });

  it('refuses a body over GATEWAY_BODY_LIMIT_BYTES with 413', async () => {
    const res = await pay('k-413').send({ amount: 1, currency: 'EUR', pad: 'x'.repeat(20_000) });
    expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
  });

  it('forwards an invoice request; a version the worker would refuse never leaves the gateway', async () => {
    orders.answer = { ok: true, status: 202, data: { deliveryId: 'd-1' }, headers: {}, attempts: 1 };
    const invoice = () =>
      request(app().getHttpServer()).post(INVOICE).set('Authorization', `Bearer ${TOKEN}`);

    const accepted = await invoice().send({ version: 3, email: 'ada@example.com' });
    const refused = await invoice().send({ version: 1_000_001, email: 'ada@example.com' });

    expect([accepted.status, accepted.body]).toEqual([202, { deliveryId: 'd-1' }]);
    expect([refused.status, refused.body.code]).toEqual([400, 'validation_failed']);
    expect(orders.calls).toEqual([
      {
        kind: 'invoice',
        invoice: { orderId: ORDER.toLowerCase(), version: 3, email: 'ada@example.com' },
        caller: { tenantId: TENANT, requestId: accepted.headers['x-request-id'] },
      },
    ]);
  });

  it.each([
    ['no token, a malformed body', undefined, '{bad'],
    ['no token, a 40 kB body (over the 16 kB limit)', undefined, JSON.stringify({ pad: 'x'.repeat(40_000) })],
    ['an unknown token, a malformed body', 'Bearer not-a-known-token-0000', '{bad'],
  ])(
    'authenticates before reading the body: %s gets 401, and nothing reaches orders',
    async (_label, auth, body) => {
      const req = request(app().getHttpServer())
        .post(PAYMENT)
        .set('Idempotency-Key', 'k-unauthenticated')
        .set('Content-Type', 'application/json');
      const res = await (auth === undefined ? req : req.set('Authorization', auth)).send(body);
      expectProblemAnswer(res, 401, 'unauthorized');
      expect(orders.calls).toEqual([]);
    },
  );

  it('serves /metrics on its metrics listener (127.0.0.1), not on the public port', async () => {
    await pay('k-metrics').send({ amount: 1, currency: 'EUR' });
    expect((await request(app().getHttpServer()).get('/metrics')).status).toBe(404);
    const port = app().get(MetricsListener).port;
    const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toMatch(
      /^http_requests_total\{method="POST",route="\/v1\/orders\/:orderId\/payments",status="201"\} [1-9]\d*$/m,
    );
  });

  it('answers liveness and readiness, and has no scenario routes without FAULTS_ENABLED', async () => {
    const server = app().getHttpServer();
    expect((await request(server).get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await request(server).get('/health');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ok' }]);
    for (const path of ['/__config', '/__requests', '/__faults']) {
      expect((await request(server).get(path)).status).toBe(404);
    }
  });
});

describe('gateway in-process with FAULTS_ENABLED=true', () => {
  const { app } = useGatewayApp({ FAULTS_ENABLED: 'true', HOST: '127.0.0.1' });
  /** The gateway's admin listener (ADMIN_PORT, on loopback): the only place its /__* routes answer. */
  const admin = () => request(`http://127.0.0.1:${app().get(AdminListener).port}`);

  it('never serves /__* on its public listener: 404 problem there, 200 on its admin listener', async () => {
    const server = app().getHttpServer();
    for (const path of ['/__requests', '/__config', '/__faults']) {
      const res = await request(server).get(path);
      expect([res.status, res.headers['content-type'], res.body.code]).toEqual([
        404,
        expect.stringMatching(/^application\/problem\+json/),
        'not_found',
      ]);
      expect((await admin().get(path)).status).toBe(200);
    }
    const put = await request(server).put('/__config').send({ keyMode: 'regenerate' });
    expect(put.status).toBe(404);
    expect((await admin().get('/__config')).body.settings).toEqual({ keyMode: 'propagate' });
    // The admin listener serves nothing else: a client's route is not reachable around the public edge.
    expect((await admin().post(PAYMENT).set('Authorization', `Bearer ${TOKEN}`)).status).toBe(404);
  });

  it('switches the key mode with PUT /__config and back with DELETE', async () => {
    expect((await admin().get('/__config')).body).toEqual({
      settings: { keyMode: 'propagate' },
      overrides: {},
    });
    const put = await admin().put('/__config').send({ keyMode: 'regenerate' });
    expect([put.status, put.body]).toEqual([
      200,
      { settings: { keyMode: 'regenerate' }, overrides: { keyMode: 'regenerate' } },
    ]);
    expect((await admin().delete('/__config')).status).toBe(204);
    expect((await admin().get('/__config')).body.settings).toEqual({ keyMode: 'propagate' });
  });

  it('refuses a settings body its schema does not know, and changes nothing', async () => {
    const res = await admin().put('/__config').send({ keyMode: 'sometimes' });
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    expect((await admin().get('/__config')).body.overrides).toEqual({});
  });

  it('journals each request once, without the scenario routes, and keeps a digest of its key, never the key', async () => {
    const server = app().getHttpServer();
    await admin().delete('/__requests');
    await request(server)
      .post(PAYMENT)
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Idempotency-Key', 'k-journal-secret-key')
      .send({ amount: 1, currency: 'EUR' });
    const journal = await admin().get('/__requests');
    const { requests } = journal.body as { requests: Array<Record<string, unknown>> };
    expect(requests).toEqual([
      expect.objectContaining({
        service: 'gateway',
        method: 'POST',
        route: '/v1/orders/:orderId/payments',
        idempotencyKeyDigest: idempotencyKeyDigest('k-journal-secret-key'),
        status: 201,
      }),
    ]);
    expect(journal.text).not.toContain('k-journal-secret-key');
  });
});
