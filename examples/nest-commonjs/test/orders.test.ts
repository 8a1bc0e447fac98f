// The app as `nest new` makes it: CommonJS, so it loads @retry-safe/idempotency through require(). Against a real
// Redis (REDIS_URL), a fresh app per test.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { AppModule } from '../src/app.module';
import { OrdersService } from '../src/orders.service';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// A prefix of this run's own, read by the app's module when it starts.
const keyPrefix = `nest-commonjs-example:${randomUUID()}:`;
process.env.IDEMPOTENCY_KEY_PREFIX = keyPrefix;

let app: INestApplication;
let url: string;

beforeEach(async () => {
  app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
});

afterEach(() => app.close());

after(async () => {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

async function placeOrder(key: string | undefined, body = { sku: 'mug', quantity: 2 }) {
  const res = await fetch(`${url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('a CommonJS Nest 11 app', () => {
  it('loads every entry point it uses through require() (no top-level await in what ships)', () => {
    assert.equal(typeof module, 'object', 'this test is not CommonJS');
    for (const entry of ['', '/nest', '/redis', '/memory']) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- require() itself is what is tested
      assert.equal(typeof require(`@retry-safe/idempotency${entry}`), 'object', entry);
    }
  });

  it('places one order per key and replays it: 201, body, Location, Idempotent-Replayed', async () => {
    const key = randomUUID();
    const first = await placeOrder(key);
    assert.equal(first.status, 201);
    assert.deepEqual(first.body, { id: 'ord_1', sku: 'mug', quantity: 2 });
    assert.equal(first.headers.get('location'), '/orders/ord_1');
    assert.equal(first.headers.get('idempotent-replayed'), null);

    const retry = await placeOrder(key);
    assert.equal(retry.status, 201);
    assert.deepEqual(retry.body, first.body);
    assert.equal(retry.headers.get('location'), '/orders/ord_1');
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(app.get(OrdersService).placed, 1);
  });

  it('answers problems: 400 without a key, 422 for the key with another body', async () => {
    const missing = await placeOrder(undefined);
    assert.equal(missing.status, 400);
    assert.match(missing.headers.get('content-type') ?? '', /^application\/problem\+json\b/);
    assert.equal(missing.body.code, 'idempotency_key_missing');

    const key = randomUUID();
    assert.equal((await placeOrder(key)).status, 201);
    const reused = await placeOrder(key, { sku: 'mug', quantity: 3 });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.code, 'idempotency_key_reused');
    assert.equal(app.get(OrdersService).placed, 1);
  });
});
