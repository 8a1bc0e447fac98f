import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { FakePayments, postOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';

describe('orders while its Postgres is stopped', () => {
  let world: OrdersWorld;
  let app: INestApplication;

  beforeAll(async () => {
    world = await startOrdersWorld(new FakePayments(), {}, { controllable: true });
    app = world.app;
  });
  afterAll(async () => {
    await world?.close();
  });

  it('is not ready, answers 503 database_unavailable with Retry-After, and works again once it is back', async () => {
    const create = (key: string) => postOrder(app, TENANT, key, { amount: 100, currency: 'EUR' });
    await world.postgres.control?.stop();

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

    await world.postgres.control?.start();
    const created = await create('outage-1');
    expect([created.status, created.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });
});
