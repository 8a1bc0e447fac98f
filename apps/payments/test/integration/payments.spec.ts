import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { TEST_INTERNAL_AUTHORIZATION, startRedis, type RedisHandle } from '@retry-safe/testing';
import request from 'supertest';
import { FakeProvider, createPaymentsApp } from './payments.app.js';

const TENANT_A = 'a0000000-0000-4000-8000-00000000000a';
const TENANT_B = 'b0000000-0000-4000-8000-00000000000b';
const ORDER = '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978';
const hex = (uuid: string) => uuid.replaceAll('-', '');

describe('payments in-process on a real Redis, provider replaced', () => {
  const provider = new FakeProvider();
  let redis: RedisHandle;
  let app: INestApplication;
  let run = '';
  const charge = (key: string, body: Record<string, unknown> = {}) =>
    request(app.getHttpServer())
      .post('/v1/payments')
      .set(TEST_INTERNAL_AUTHORIZATION)
      .set('Idempotency-Key', key)
      .send({ tenantId: TENANT_A, orderId: ORDER, amount: 1999, currency: 'EUR', ...body });

  beforeAll(async () => {
    redis = await startRedis();
    app = await createPaymentsApp(provider, {
      REDIS_URL: redis.url,
      IDEMPOTENCY_KEY_PREFIX: `it-payments-${randomUUID().slice(0, 8)}:`,
      FAULTS_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });
  beforeEach(async () => {
    provider.charges.length = 0;
    provider.rejectWith = undefined;
    run = randomUUID().slice(0, 8);
    await request(app.getHttpServer()).delete('/__config').expect(204);
  });

  it('charges once per key: the retry gets the same bytes with Idempotent-Replayed', async () => {
    const first = await charge(`k-${run}`);
    const retry = await charge(`k-${run}`);

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(retry.text).toBe(first.text);
    expect(provider.charges).toEqual([
      {
        request: { amount: 1999, currency: 'EUR', reference: ORDER },
        key: `payment.charge.${hex(TENANT_A)}.k-${run}`,
      },
    ]);
  });

  it('refuses the same key with other parameters (422) and charges nothing more', async () => {
    await charge(`k-${run}`).expect(201);
    const reused = await charge(`k-${run}`, { amount: 2000 });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(provider.charges).toHaveLength(1);
  });

  it('keeps tenants apart: one key, two tenants, two charges', async () => {
    await charge(`k-${run}`).expect(201);
    await charge(`k-${run}`, { tenantId: TENANT_B }).expect(201);
    expect(provider.charges.map((c) => c.key)).toEqual([
      `payment.charge.${hex(TENANT_A)}.k-${run}`,
      `payment.charge.${hex(TENANT_B)}.k-${run}`,
    ]);
  });

  it('reads the key in either wire form: "k" and k are one key', async () => {
    await charge(`"k-${run}"`).expect(201);
    const bare = await charge(`k-${run}`);
    expect(bare.headers['idempotent-replayed']).toBe('true');
    expect(provider.charges).toHaveLength(1);
  });

  it('answers 422 payment_rejected when the provider refuses, and stores nothing', async () => {
    provider.rejectWith = 402;
    const refused = await charge(`k-${run}`);
    expect([refused.status, refused.body.code]).toEqual([422, 'payment_rejected']);
    provider.rejectWith = undefined;
    await charge(`k-${run}`).expect(201);
    expect(provider.charges).toHaveLength(1);
  });

  it('with PUT /__config {"enabled": false} charges on every call (the unprotected design)', async () => {
    await request(app.getHttpServer()).put('/__config').send({ enabled: false }).expect(200);
    await charge(`k-${run}`).expect(201);
    await charge(`k-${run}`).expect(201);
    expect(provider.charges).toHaveLength(2);
  });

  it.each([
    ['a blank key', '"   "', 'idempotency_key_invalid'],
    ['an unknown currency', 'k', 'validation_failed'],
  ])('refuses %s with 400 and charges nothing', async (_label, key, code) => {
    const res = await charge(key, code === 'validation_failed' ? { currency: 'XXX' } : {});
    expect([res.status, res.body.code]).toEqual([400, code]);
    expect(provider.charges).toEqual([]);
  });

  it.each([
    ['no internal credential', undefined],
    ['a wrong internal credential', 'Bearer wrong-internal-token-0123456789abcdef'],
    ['a prefix of the internal token', 'Bearer test-internal-token-0123456789abcde'],
  ])('refuses a charge with %s (401), charges nothing and stores nothing', async (_label, auth) => {
    const req = request(app.getHttpServer()).post('/v1/payments').set('Idempotency-Key', `k-${run}`);
    const body = { tenantId: TENANT_B, orderId: ORDER, amount: 1999, currency: 'EUR' };
    const res = await (auth === undefined ? req : req.set('Authorization', auth)).send(body);
    expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
    expect(provider.charges).toEqual([]);
    // The same key with the credential is a first call: the refused one left no record behind.
    const trusted = await charge(`k-${run}`);
    expect([trusted.status, trusted.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(provider.charges).toHaveLength(1);
  });

  it('is ready while its Redis answers', async () => {
    const res = await request(app.getHttpServer()).get('/health');
    expect([res.status, res.body]).toEqual([200, { status: 'ok', redis: 'up' }]);
  });
});
