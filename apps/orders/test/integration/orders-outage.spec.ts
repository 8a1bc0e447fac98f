import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import {
  TEST_INTERNAL_AUTHORIZATION,
  startPostgres,
  startRedis,
  type PostgresHandle,
  type RedisHandle,
} from '@retry-safe/testing';
import request from 'supertest';
import { FakePayments, createOrdersApp } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';

describe('orders while its Postgres is stopped', () => {
  let redis: RedisHandle;
  let postgres: PostgresHandle;
  let app: INestApplication;

  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres({ controllable: true })]);
    app = await createOrdersApp(new FakePayments(), { REDIS_URL: redis.url, DATABASE_URL: postgres.url });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.close();
    await postgres?.close();
  });

  it('is not ready, answers 503 database_unavailable with Retry-After, and works again once it is back', async () => {
    const create = (key: string) =>
      request(app.getHttpServer())
        .post('/v1/orders')
        .set('x-tenant-id', TENANT)
        .set(TEST_INTERNAL_AUTHORIZATION)
        .set('Idempotency-Key', key)
        .send({ amount: 100, currency: 'EUR' });
    await postgres.control?.stop();

    const health = await request(app.getHttpServer()).get('/health');
    expect([health.status, health.body]).toEqual([
      503,
      { status: 'unavailable', redis: 'up', postgres: 'down' },
    ]);
    const refused = await create('outage-1');
    expect([refused.status, refused.body.code, refused.headers['retry-after']]).toEqual([
      503,
      'database_unavailable',
      '1',
    ]);

    await postgres.control?.start();
    const created = await create('outage-1');
    expect([created.status, created.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });
});
