const ORDERS_ENTRY = fileURLToPath(new URL('../../apps/orders/dist/main.js', import.meta.url));

/**
 * Issue 15: the worker and its producers (orders, and a BullMQ Queue) on a 3-master Redis Cluster. BullMQ's scripts touch several keys of a queue
 * at once, so every key of the queue (and of the dead-letter queue) must hash to one slot: the prefix carries a
 * hash tag, `{e2e-cluster-<tag>}`, checked by the worker at start-up. The seed's jobs table (an acknowledgement
 * that fails after the receipt was saved: 2 deliveries, 1 email) and the dead-letter re-drive hold there too.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  startPostgres,
  startRedisCluster,
  startServiceProcess,
  TEST_INTERNAL_AUTHORIZATION,
  TEST_INTERNAL_TOKEN,
  type PostgresHandle,
  type RedisClusterHandle,
  type ServiceProcess,
} from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import type { Cluster } from 'ioredis';
import { ACK_FAILS_ONCE } from '@retry-safe/scenarios';
import {
  DEAD_LETTER_QUEUE,
  freshInvoice,
  invoiceQueue,
  redriveCli,
  settled,
  startProvider,
  uniqueTag,
  type Provider,
  type WorkerProcess,
} from './jobs-harness.js';
import { WorkerPool } from './jobs-stack.js';

describe('invoice worker on a 3-master Redis Cluster', () => {
  const HORIZON_MS = 1_500;
  let cluster: RedisClusterHandle;
  let client: Cluster;
  let provider: Provider;
  let pool: WorkerPool;
  let worker: WorkerProcess;
  let deadLetters: Queue;
  let orders: ServiceProcess;
  let postgres: PostgresHandle;
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    client = cluster.client();
    provider = await startProvider('provider-sim', 'off');
    const prefix = `{e2e-cluster-${uniqueTag()}}`;
    env = {
      REDIS_CLUSTER_NODES: cluster.nodes.map((node) => `redis://${node.host}:${node.port}`).join(','),
      BULLMQ_PREFIX: prefix,
    };
    pool = new WorkerPool({
      redisUrl: 'redis://127.0.0.1:1',
      queueRedis: client,
      provider,
      prefix,
      env: {
        ...env,
        WORKER_BACKOFF_BASE_MS: '100',
        WORKER_BACKOFF_CAP_MS: '300',
        WORKER_RETRY_HORIZON_MS: String(HORIZON_MS),
      },
    });
    worker = await pool.start('worker-cluster');
    deadLetters = invoiceQueue(client, prefix, DEAD_LETTER_QUEUE) as unknown as Queue;
    const ordersPort = await freePort();
    postgres = await startPostgres();
    // orders as it runs anywhere else: only its environment names the Cluster (no payments behind it here).
    orders = await startServiceProcess({
      name: 'orders-cluster',
      entry: ORDERS_ENTRY,
      port: ordersPort,
      env: {
        ...env,
        ORDERS_PORT: String(ordersPort),
        PAYMENTS_URL: 'http://127.0.0.1:1',
        INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
        DATABASE_URL: postgres.url,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await orders?.kill('SIGTERM');
    await postgres?.close();
    await deadLetters?.close();
    await pool?.close();
    await provider?.process.kill('SIGTERM');
    await client?.quit();
    await cluster?.close();
  });

  it('the jobs table holds: the acknowledgement fails once, 2 deliveries, 1 email, the same receipt', async () => {
    await worker.setFaults([ACK_FAILS_ONCE]);
    const data = freshInvoice();

    await pool.queue.add('invoice', data, { jobId: data.deliveryId, attempts: 1 });
    const { state, job } = await settled(pool.queue, data.deliveryId);

    const { calls, emails } = await provider.emails();
    const deliveries = (await worker.deliveries()).filter((d) => d.requestId === data.deliveryId);
    expect(deliveries.map((d) => [d.status, d.error ?? d.outcome])).toEqual([
      ['failed', 'FAULT_INJECTED'],
      ['completed', 'replayed'],
    ]);
    expect([calls, emails.length]).toEqual([1, 1]);
    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    // Every key of the queue is in the hash tag's slot (the scripts would have failed with CROSSSLOT otherwise).
    const slot = await client.cluster('KEYSLOT', env['BULLMQ_PREFIX']!);
    expect(await client.cluster('KEYSLOT', `${env['BULLMQ_PREFIX']}:invoices:${data.deliveryId}`)).toBe(slot);
  });

  it("orders' producer publishes there: an invoice asked for twice (two deliveries) is one email", async () => {
    const tenantId = randomUUID();
    // The order must exist: orders owns it (created straight at orders, as the gateway would forward it).
    const created = await fetch(`${orders.url}/v1/orders`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...TEST_INTERNAL_AUTHORIZATION,
        'x-tenant-id': tenantId,
        'idempotency-key': 'cluster-order',
      },
      body: JSON.stringify({ amount: 100, currency: 'EUR' }),
    });
    const orderId = ((await created.json()) as { id: string }).id;
    const ask = async () => {
      const res = await fetch(`${orders.url}/v1/orders/${orderId}/invoices`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...TEST_INTERNAL_AUTHORIZATION,
          'x-tenant-id': tenantId,
        },
        body: JSON.stringify({ version: 1, email: 'ada@example.com' }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { deliveryId: string }).deliveryId;
    };
    const before = (await provider.emails()).emails.length;

    const first = await settled(pool.queue, await ask());
    const second = await settled(pool.queue, await ask());

    expect([first.state, second.state]).toEqual(['completed', 'completed']);
    expect(second.job.returnvalue).toEqual(first.job.returnvalue);
    const { emails } = await provider.emails();
    expect(emails.length - before).toBe(1);
    expect(emails.at(-1)!.idempotencyKey).toBe(
      `mail.invoice.${tenantId.replaceAll('-', '')}.${orderId.replaceAll('-', '')}.v1`,
    );
  });

  it('past the horizon the job is dead-lettered; the re-drive sends it once, a second sends nothing', async () => {
    await worker.setFaults([]);
    await provider.process.kill('SIGTERM');
    const data = freshInvoice();
    await pool.queue.add('invoice', data, { jobId: data.deliveryId, attempts: 1 });

    const dead = await settled(pool.queue, data.deliveryId, HORIZON_MS + 10_000);
    expect(dead.job.failedReason).toMatch(/^RETRY_HORIZON_EXHAUSTED: /);
    expect(await deadLetters.getWaitingCount()).toBe(1);
    await provider.process.start();

    const first = await redriveCli(env, ['--all']);
    expect(first.code).toBe(0);
    expect(first.report.redriven.map((r) => r.deadJobId)).toEqual([data.deliveryId]);
    expect((await settled(pool.queue, first.report.redriven[0]!.jobId)).state).toBe('completed');
    expect(await redriveCli(env, ['--all'])).toEqual({ code: 0, report: { redriven: [], notFound: [] } });
    const { calls, emails } = await provider.emails();
    expect([calls, emails.length]).toEqual([1, 1]);
  });
});
