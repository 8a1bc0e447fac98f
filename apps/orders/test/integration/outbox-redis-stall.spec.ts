/**
 * Issue 24: a stalled Redis must not hold PostgreSQL. Redis is paused (SIGSTOP) for 15 s while an invoice waits in
 * the outbox: the relay claims, fails its publish within `REDIS_COMMAND_TIMEOUT_MS` and gives the rows back, so no
 * transaction sits `idle in transaction` (with its row locks) for the pause; the invoice goes out once Redis is
 * back, and a shutdown during a pause ends within its drain bound instead of waiting for Redis.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { shutdown } from '@retry-safe/app-shell';
import { INVOICES_QUEUE } from '@retry-safe/contracts';
import { TEST_INTERNAL_AUTHORIZATION, sleep, waitFor } from '@retry-safe/testing';
import { Queue } from 'bullmq';
import request from 'supertest';
import { FakePayments, createOrder, startOrdersWorld, type OrdersWorld } from './orders.app.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';
const PAUSE_MS = 15_000;
const DRAIN_TIMEOUT_MS = 5_000;
// "A few seconds": well under the pause, and under the 5 s idle_in_transaction_session_timeout backstop, so it is
// the relay's design that passes, not the server ending a stuck session.
const MAX_IDLE_IN_TRANSACTION_S = 3;

describe('the outbox relay while Redis is paused', () => {
  let world: OrdersWorld;
  let queue: Queue;
  let closed = false;
  const prefix = `it-stall-${randomUUID().slice(0, 8)}`;

  const requestInvoice = (orderId: string, version: number) =>
    request(world.app.getHttpServer())
      .post(`/v1/orders/${orderId}/invoices`)
      .set('x-tenant-id', TENANT)
      .set(TEST_INTERNAL_AUTHORIZATION)
      .send({ version, email: 'ada@example.com' });
  /** The longest any session of the database has been `idle in transaction` right now, in seconds. */
  const longestIdleInTransaction = async (): Promise<number> => {
    const { rows } = await world.pool.query<{ idle: number }>(
      `SELECT coalesce(max(extract(epoch FROM clock_timestamp() - state_change)), 0)::float8 AS idle
       FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
    );
    return rows[0]?.idle ?? 0;
  };
  /** Pauses Redis for `ms` while `during` runs (it may end sooner: Redis stays paused the whole `ms`). */
  const withRedisPaused = async <T>(ms: number, during: () => Promise<T>): Promise<T> => {
    const resumeAt = Date.now() + ms;
    world.redis.control?.pause();
    try {
      return await during();
    } finally {
      await sleep(Math.max(0, resumeAt - Date.now()));
      world.redis.control?.resume();
    }
  };

  beforeAll(async () => {
    world = await startOrdersWorld(
      new FakePayments(),
      {
        BULLMQ_PREFIX: prefix,
        REDIS_COMMAND_TIMEOUT_MS: '1000',
        OUTBOX_LEASE_MS: '3000',
        OUTBOX_POLL_MS: '200',
        DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
      },
      {},
      { controllable: true },
    );
    queue = new Queue(INVOICES_QUEUE, { connection: { url: world.redis.url }, prefix });
  });
  afterAll(async () => {
    world?.redis.control?.resume();
    await queue?.close();
    if (closed) {
      await world?.pool.end();
      await world?.redis.close();
      await world?.postgres.close();
    } else await world?.close();
  });

  it('holds no transaction idle through a 15 s pause and publishes the invoice once Redis is back', async () => {
    const orderId = await createOrder(world.app, TENANT, { amount: 100, currency: 'EUR' });
    let longest = 0;
    const deliveryId = await withRedisPaused(PAUSE_MS, async () => {
      const accepted = await requestInvoice(orderId, 1);
      expect(accepted.status).toBe(202);
      const until = Date.now() + PAUSE_MS - 500;
      while (Date.now() < until) {
        longest = Math.max(longest, await longestIdleInTransaction());
        await sleep(200);
      }
      return accepted.body.deliveryId as string;
    });
    expect(longest).toBeLessThan(MAX_IDLE_IN_TRANSACTION_S);

    await waitFor(
      'the invoice to be published after the pause',
      async () => {
        const { rows } = await world.pool.query(
          'SELECT published_at FROM invoice_outbox WHERE delivery_id = $1',
          [deliveryId],
        );
        if (rows[0]?.published_at === null) throw new Error('not published yet');
      },
      { timeoutMs: 15_000 },
    );
    expect((await queue.getJob(deliveryId))?.data.orderId).toBe(orderId);
    expect((await queue.getJobs(['waiting', 'delayed', 'active'])).map((job) => job.id)).toEqual([
      deliveryId,
    ]);
  }, 60_000);

  it('shuts down within its drain bound while Redis is paused', async () => {
    const orderId = await createOrder(world.app, TENANT, { amount: 100, currency: 'EUR' });
    const elapsed = await withRedisPaused(2 * DRAIN_TIMEOUT_MS, async () => {
      expect((await requestInvoice(orderId, 1)).status).toBe(202);
      // A round is now publishing into the paused Redis; SIGTERM comes in the middle of it.
      await sleep(300);
      const started = Date.now();
      await shutdown(world.app, DRAIN_TIMEOUT_MS, new Logger('test'));
      closed = true;
      return Date.now() - started;
    });
    expect(elapsed).toBeLessThan(DRAIN_TIMEOUT_MS);
  }, 60_000);
});
