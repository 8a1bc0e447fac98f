import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { shellPlatform, whenReady } from '@retry-safe/app-shell';
import { type ChainContext } from '@retry-safe/app-shell/http';
import type { Charge, PaymentCommand } from '@retry-safe/contracts';
import type { ServiceResponse } from '@retry-safe/http-client';
import {
  TEST_INTERNAL_AUTHORIZATION,
  TEST_INTERNAL_TOKEN,
  startPostgres,
  startRedis,
  type PostgresHandle,
  type RedisHandle,
  type StartPostgresOptions,
  type StartRedisOptions,
} from '@retry-safe/testing';
import { createTestApp } from '@retry-safe/testing/nest';
import type pg from 'pg';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { loadOrdersConfig } from '../../src/config/orders-config.js';
import { PaymentsClient } from '../../src/payments/payments.client.js';

/**
 * Stands for the payments client. By default it behaves as payments does: one Charge per key, replayed with
 * `Idempotent-Replayed: true` to every repeat of the key, and 422 `idempotency_key_reused` for the key with another
 * order, amount or currency. `answer` overrides that with a fixed response.
 */
export class FakePayments {
  readonly calls: Array<{ command: PaymentCommand; key: string; chain: ChainContext }> = [];
  readonly charges = new Map<string, Charge>();
  answer: ServiceResponse<unknown> | undefined;
  /** Each call waits for it before answering (a charge still in flight at the provider). */
  hold: Promise<void> | undefined;
  /** Thrown instead of answering (a timeout, payments unreachable: the outcome is not known). */
  failure: Error | undefined;

  async charge(command: PaymentCommand, key: string, chain: ChainContext): Promise<ServiceResponse<unknown>> {
    this.calls.push({ command, key, chain });
    await this.hold;
    if (this.failure !== undefined) throw this.failure;
    if (this.answer !== undefined) return this.answer;
    const stored = this.charges.get(key);
    if (stored !== undefined && !sameCommand(stored, command)) return KEY_REUSED;
    const charge = stored ?? {
      id: randomUUID(),
      orderId: command.orderId,
      amount: command.amount,
      currency: command.currency,
      status: 'succeeded' as const,
      providerChargeId: `ch_${this.charges.size + 1}`,
    };
    this.charges.set(key, charge);
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (stored !== undefined) headers['idempotent-replayed'] = 'true';
    return { ok: true, status: 201, data: charge, headers, attempts: 1 };
  }
}

const KEY_REUSED: ServiceResponse<unknown> = {
  ok: false,
  status: 422,
  data: {
    type: 'urn:retry-safe:problem:idempotency_key_reused',
    status: 422,
    code: 'idempotency_key_reused',
  },
  headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  attempts: 1,
};

function sameCommand(charge: Charge, command: PaymentCommand): boolean {
  return (
    charge.orderId === command.orderId &&
    charge.amount === command.amount &&
    charge.currency === command.currency
  );
}

/** orders as `main.ts` builds it (without listening), on a real Redis and Postgres, its payments client replaced. */
export function createOrdersApp(
  payments: FakePayments,
  env: Record<string, string>,
): Promise<INestApplication> {
  return createTestApp(AppModule.forRoot(loadOrdersConfig({ INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env })), {
    overrides: [[PaymentsClient, payments]],
    ...shellPlatform(),
    ready: whenReady,
  });
}

/** orders in-process on its own Redis and Postgres database, and a pool on that database for counting rows. */
export interface OrdersWorld {
  readonly app: INestApplication;
  readonly redis: RedisHandle;
  readonly postgres: PostgresHandle;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Starts an {@link OrdersWorld} (`startRedis`, `startPostgres`: a fresh database, or a server of its own the test
 * can stop with `postgresOptions` `{ controllable: true }`, and a Redis it can pause with `redisOptions`
 * `{ controllable: true }`); `close` stops all of it.
 */
export async function startOrdersWorld(
  payments: FakePayments,
  env: Record<string, string> = {},
  postgresOptions: StartPostgresOptions = {},
  redisOptions: StartRedisOptions = {},
): Promise<OrdersWorld> {
  const [redis, postgres] = await Promise.all([startRedis(redisOptions), startPostgres(postgresOptions)]);
  const pool = postgres.pool();
  const app = await createOrdersApp(payments, { REDIS_URL: redis.url, DATABASE_URL: postgres.url, ...env });
  return {
    app,
    redis,
    postgres,
    pool,
    async close() {
      await app.close();
      await pool.end();
      await redis.close();
      await postgres.close();
    },
  };
}

/**
 * One {@link OrdersWorld} for a describe block, as `useGatewayApp` is for the gateway's: started before its tests
 * (with `payments`, `env` and `postgresOptions` as {@link startOrdersWorld} takes them), closed after them.
 */
export function useOrdersWorld(
  payments: FakePayments,
  env: Record<string, string> = {},
  postgresOptions: StartPostgresOptions = {},
): () => OrdersWorld {
  let world: OrdersWorld | undefined;
  beforeAll(async () => {
    world = await startOrdersWorld(payments, env, postgresOptions);
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (world === undefined) throw new Error('the orders world is not running (beforeAll failed?)');
    return world;
  };
}

/** `POST /v1/orders` of `tenantId` as the gateway sends it (internal credential), with `key` unless undefined. */
export function postOrder(
  app: INestApplication,
  tenantId: string,
  key: string | undefined,
  body: unknown,
): request.Test {
  const req = request(app.getHttpServer())
    .post('/v1/orders')
    .set('x-tenant-id', tenantId)
    .set(TEST_INTERNAL_AUTHORIZATION);
  return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body as object);
}

/** Creates an order of `tenantId` through `POST /v1/orders` (a fresh key) and resolves to its id. */
export async function createOrder(
  app: INestApplication,
  tenantId: string,
  order: { amount: number; currency: string } = { amount: 1999, currency: 'EUR' },
): Promise<string> {
  const res = await postOrder(app, tenantId, `create-${randomUUID()}`, order);
  if (res.status !== 201) throw new Error(`POST /v1/orders answered ${res.status}: ${res.text}`);
  return res.body.id as string;
}
