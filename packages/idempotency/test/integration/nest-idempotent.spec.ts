import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, HttpCode, Module, Post, Res, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Response } from 'express';
import request from 'supertest';
import { startRedis } from '@retry-safe/testing';
import type { IdempotencyStore } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { Idempotent, IdempotencyModule } from '../../src/nest/index.js';
import { suiteRedis } from './support.js';

const redis = suiteRedis(() => startRedis());

/** Counts the provider's charges: the effect each test counts. */
const provider = { charges: 0, refused: 0, hold: undefined as Promise<void> | undefined };

@Controller()
class ChargesController {
  @Post('charges')
  @Idempotent({
    operation: 'nest.charge',
    inFlight: 'raise',
    scope: (req) => String(req.headers['x-tenant']),
  })
  async charge(@Body() body: { amount: number }, @Res({ passthrough: true }) res: Response) {
    if (body.amount < 0) {
      provider.refused += 1;
      throw new Error('negative amount');
    }
    provider.charges += 1;
    await provider.hold;
    const id = `ch_${provider.charges}`;
    res.location(`/charges/${id}`);
    return { id, amount: body.amount };
  }

  @Post('refunds')
  @HttpCode(202)
  @Idempotent({
    operation: 'nest.refund',
    fingerprint: (req) => ({ amount: (req.body as { amount: number }).amount }),
  })
  refund(@Body() body: { amount: number; note?: string }) {
    provider.charges += 1;
    return { refunded: body.amount };
  }
}

async function appWith(store: IdempotencyStore & { close?: () => Promise<void> }): Promise<INestApplication> {
  @Module({ imports: [IdempotencyModule.forRoot({ store })], controllers: [ChargesController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('@Idempotent() on a Nest route, real Redis', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await appWith(
      new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-route:${randomUUID()}:` }),
    );
  });
  afterAll(async () => {
    await app.close();
  });
  const post = (path: string, key: string | undefined, body: object, tenant = 't1') => {
    const req = request(app.getHttpServer()).post(path).set('X-Tenant', tenant);
    return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
  };

  it('201 once, then the same status, body and Location replayed with Idempotent-Replayed; one charge', async () => {
    const before = provider.charges;
    const first = await post('/charges', 'k-replay', { amount: 100 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/charges', '"k-replay"', { amount: 100 });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['location']).toBe(first.headers['location']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(provider.charges - before).toBe(1);
  });

  it('the same key with another body: 422 idempotency_key_reused, nothing charged', async () => {
    await post('/charges', 'k-reuse', { amount: 100 });
    const before = provider.charges;
    const reused = await post('/charges', 'k-reuse', { amount: 999 });
    expect(reused.status).toBe(422);
    expect(reused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(reused.body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    expect(provider.charges).toBe(before);
  });

  it('no key: 400 idempotency_key_missing; a bad key: 400 idempotency_key_invalid; nothing charged', async () => {
    const before = provider.charges;
    const missing = await post('/charges', undefined, { amount: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'idempotency_key_missing' });
    const invalid = await post('/charges', '"unterminated', { amount: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ code: 'idempotency_key_invalid' });
    expect(provider.charges).toBe(before);
  });

  it('in flight: 409 request_in_progress with Retry-After, and one charge', async () => {
    let release: () => void = () => {};
    provider.hold = new Promise((resolve) => (release = resolve));
    const before = provider.charges;
    const first = post('/charges', 'k-flight', { amount: 5 }).then((r) => r);
    while (provider.charges === before) await new Promise((r) => setTimeout(r, 5));
    const second = await post('/charges', 'k-flight', { amount: 5 });
    release();
    provider.hold = undefined;
    expect(second.status).toBe(409);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.body).toMatchObject({ code: 'request_in_progress' });
    expect((await first).status).toBe(201);
    expect(provider.charges - before).toBe(1);
  });

  it('the scope separates records: one key in two tenants is two charges', async () => {
    const before = provider.charges;
    const a = await post('/charges', 'k-scope', { amount: 7 }, 'ta');
    const b = await post('/charges', 'k-scope', { amount: 7 }, 'tb');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(provider.charges - before).toBe(2);
  });

  it('a throwing handler stores nothing: the retry runs again', async () => {
    const before = provider.refused;
    const failed = await post('/charges', 'k-throw', { amount: -1 });
    expect(failed.status).toBe(500);
    const retried = await post('/charges', 'k-throw', { amount: -1 });
    expect(retried.status).toBe(500);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(provider.refused - before).toBe(2);
  });

  it('a custom fingerprint and @HttpCode: 202 replayed; a field outside the fingerprint is no reuse', async () => {
    const before = provider.charges;
    const first = await post('/refunds', 'k-refund', { amount: 3, note: 'a' });
    const again = await post('/refunds', 'k-refund', { amount: 3, note: 'b' });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual({ refunded: 3 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(provider.charges - before).toBe(1);
  });
});

describe('@Idempotent() with the store down', () => {
  it('503 idempotency_store_unavailable with Retry-After, and the handler never runs', async () => {
    const down = (): Promise<never> => Promise.reject(new Error('connection refused'));
    const app = await appWith({
      claim: down,
      complete: down,
      renew: down,
      release: down,
      storeIfAbsent: down,
    });
    try {
      const before = provider.charges;
      const res = await request(app.getHttpServer())
        .post('/charges')
        .set('Idempotency-Key', 'k')
        .send({ amount: 1 });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toMatchObject({ code: 'idempotency_store_unavailable' });
      expect(provider.charges).toBe(before);
    } finally {
      await app.close();
    }
  });
});
