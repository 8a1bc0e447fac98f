// POST /charges against a real Redis (REDIS_URL, default redis://127.0.0.1:6379): a fresh app per test, so its
// charge counter starts at 0, and a prefix of this run's own, so nothing else in that Redis is read or touched.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import request from 'supertest';
import { AppModule } from '../src/app.module.js';
import { PaymentProvider } from '../src/payment-provider.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keyPrefix = `nest-charges-example:${randomUUID()}:`;
const body = { amount: 1000, currency: 'eur' };

let app: INestApplication;
let url: string;
let provider: PaymentProvider;

beforeEach(async () => {
  app = await NestFactory.create(AppModule.forRoot({ redisUrl, keyPrefix }), { logger: false });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
  provider = app.get(PaymentProvider);
});

afterEach(async () => {
  mock.restoreAll();
  await app.close();
});

after(async () => {
  // The records live 24 hours: delete this run's, by its prefix only.
  const redis = new Redis(redisUrl);
  try {
    for await (const keys of redis.scanStream({ match: `${keyPrefix}*`, count: 1000 }) as AsyncIterable<
      string[]
    >) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    await redis.quit();
  }
});

function charge(key: string | undefined, payload: object = body): request.Test {
  const post = request(url).post('/charges').send(payload);
  return key === undefined ? post : post.set('Idempotency-Key', key);
}

/** The response is exactly this RFC 9457 problem, as the library's filter sends it. */
function assertProblem(
  res: request.Response,
  status: number,
  code: string,
  title: string,
  detail: string,
): void {
  assert.equal(res.status, status);
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.deepEqual(res.body, { type: 'about:blank', title, status, detail, code, instance: '/charges' });
}

describe('POST /charges with @Idempotent()', () => {
  it('charges on the first call and replays the same answer to a retry', async () => {
    const key = randomUUID();

    const first = await charge(key);
    assert.equal(first.status, 201);
    assert.deepEqual(first.body, { id: 'ch_1', amount: 1000, currency: 'eur' });
    assert.equal(first.headers['location'], '/charges/ch_1');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.equal(provider.count, 1);

    const retry = await charge(key);
    assert.equal(retry.status, 201);
    assert.deepEqual(retry.body, first.body);
    assert.equal(retry.headers['location'], '/charges/ch_1');
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(provider.count, 1);
  });

  it('refuses the key with another body: 422, nothing charged', async () => {
    const key = randomUUID();
    assert.equal((await charge(key)).status, 201);

    const reused = await charge(key, { amount: 2000, currency: 'eur' });
    assertProblem(
      reused,
      422,
      'idempotency_key_reused',
      'Idempotency-Key reused with different parameters',
      'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
    );
    assert.equal(provider.count, 1);
  });

  it('requires a key: 400 idempotency_key_missing, nothing charged', async () => {
    const res = await charge(undefined);
    assertProblem(
      res,
      400,
      'idempotency_key_missing',
      'Idempotency-Key required',
      'The Idempotency-Key header is required',
    );
    assert.equal(provider.count, 0);
  });

  it('refuses an invalid key: 400 idempotency_key_invalid, nothing charged', async () => {
    const res = await charge('k'.repeat(256));
    assertProblem(
      res,
      400,
      'idempotency_key_invalid',
      'Invalid Idempotency-Key',
      'The Idempotency-Key is not acceptable: key is longer than 255 characters',
    );
    assert.equal(provider.count, 0);
  });

  it('answers a retry that arrives while the first call runs with 409 and Retry-After', async () => {
    const key = randomUUID();
    // The first call is held inside the provider until the retry has been answered.
    const entered = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const original = provider.charge.bind(provider);
    mock.method(provider, 'charge', async (amount: number, currency: string) => {
      entered.resolve();
      await release.promise;
      return original(amount, currency);
    });

    // `then` sends it now (a supertest request goes out only when awaited); it is awaited after the retry.
    const first = charge(key).then((res) => res);
    await entered.promise;
    const duplicate = await charge(key);
    assertProblem(
      duplicate,
      409,
      'request_in_progress',
      'Request in progress',
      'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
    );
    assert.equal(duplicate.headers['retry-after'], '1');
    assert.equal(provider.count, 0);

    release.resolve();
    const done = await first;
    assert.equal(done.status, 201);
    assert.deepEqual(done.body, { id: 'ch_1', amount: 1000, currency: 'eur' });
    assert.equal(provider.count, 1);

    const retry = await charge(key);
    assert.equal(retry.status, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, done.body);
    assert.equal(provider.count, 1);
  });
});
