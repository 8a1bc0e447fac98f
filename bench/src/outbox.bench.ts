/**
 * `pnpm bench:outbox`: commit-to-enqueue latency of orders' invoice outbox. Starts a private Redis, a PostgreSQL
 * (`startPostgres`: a fresh database on `DATABASE_URL`'s server, else a private cluster) and one orders process from
 * the built tree (`pnpm build` first), creates an order, then sends `OUTBOX_BENCH_REQUESTS` (default 200) invoice
 * requests one after another. For each delivery: from its outbox row's `created_at` (the transaction's start, so an
 * upper bound of the commit) to its BullMQ job's `timestamp` (set by the relay's add). Goal: p50 <= 100 ms.
 * Baseline in the same run: the request's own round trip (`POST .../invoices` to its 202). Writes
 * bench/results/outbox.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import {
  TEST_INTERNAL_AUTHORIZATION,
  TEST_INTERNAL_TOKEN,
  freePort,
  startPostgres,
  startRedis,
  startServiceProcess,
  waitFor,
} from '@retry-safe/testing';
import { Queue } from 'bullmq';
import type pg from 'pg';
import { positiveInt } from './support/env.js';
import { repoRoot } from './support/repo-root.js';
import { summarise } from './support/stats.js';

const TENANT = 'a0000000-0000-4000-8000-00000000000a';
const REQUESTS = positiveInt('OUTBOX_BENCH_REQUESTS', 200);
const PREFIX = `bench-outbox-${randomUUID().slice(0, 8)}`;

/** A POST to the orders process on `port`, as the gateway sends it for {@link TENANT}. */
type Post = (path: string, body: object, key?: string) => Promise<Response>;

function postTo(port: number): Post {
  return (path, body, key) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...TEST_INTERNAL_AUTHORIZATION,
        'x-tenant-id': TENANT,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
}

/** Creates an order, then requests {@link REQUESTS} invoices of it one after another: each round trip, each delivery. */
async function requestInvoices(post: Post): Promise<{ roundTrips: bigint[]; deliveries: string[] }> {
  const created = (await (await post('/v1/orders', { amount: 100, currency: 'EUR' }, 'bench')).json()) as {
    id: string;
  };
  const roundTrips: bigint[] = [];
  const deliveries: string[] = [];
  for (let i = 1; i <= REQUESTS; i++) {
    const start = process.hrtime.bigint();
    const res = await post(`/v1/orders/${created.id}/invoices`, { version: i, email: 'bench@example.com' });
    roundTrips.push(process.hrtime.bigint() - start);
    if (res.status !== 202) throw new Error(`invoice request answered ${res.status}: ${await res.text()}`);
    deliveries.push(((await res.json()) as { deliveryId: string }).deliveryId);
  }
  return { roundTrips, deliveries };
}

/** For each delivery: from its outbox row's `created_at` to its job's `timestamp` on the queue (ns). */
async function commitToEnqueue(
  deliveries: readonly string[],
  queue: Queue,
  pool: pg.Pool,
): Promise<bigint[]> {
  const latencies: bigint[] = [];
  for (const deliveryId of deliveries) {
    const job = await waitFor(`job ${deliveryId}`, async () => {
      const found = await queue.getJob(deliveryId);
      if (found === undefined) throw new Error('not published yet');
      return found;
    });
    const { rows } = await pool.query('SELECT created_at FROM invoice_outbox WHERE delivery_id = $1', [
      deliveryId,
    ]);
    const committedMs = (rows[0] as { created_at: Date }).created_at.getTime();
    latencies.push(BigInt(Math.max(0, job.timestamp - committedMs)) * 1_000_000n);
  }
  return latencies;
}

/** Prints the figures against the round-trip baseline and writes results/outbox.json. */
async function report(latencies: bigint[], roundTrips: bigint[]): Promise<void> {
  const commitToEnqueue = summarise(latencies);
  const request = summarise(roundTrips);
  const result = {
    requests: REQUESTS,
    commitToEnqueueMs: commitToEnqueue,
    requestRoundTripMs: request,
    ratioP50: Math.round((commitToEnqueue.p50 / request.p50) * 100) / 100,
    goal: { p50AtMostMs: 100, met: commitToEnqueue.p50 <= 100 },
  };
  console.log(
    [
      `outbox: ${REQUESTS} invoice requests, one orders process (NOTIFY + poll every 1000 ms)`,
      `  commit -> enqueue  p50 ${commitToEnqueue.p50} ms  p99 ${commitToEnqueue.p99} ms  max ${commitToEnqueue.max} ms`,
      `  request round trip p50 ${request.p50} ms (baseline; ratio ${result.ratioP50})`,
      `  goal p50 <= 100 ms: ${result.goal.met ? 'met' : 'MISSED'}`,
    ].join('\n'),
  );
  await mkdir(new URL('../results/', import.meta.url), { recursive: true });
  await writeFile(new URL('../results/outbox.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
}

async function main(): Promise<void> {
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  const port = await freePort();
  const orders = await startServiceProcess({
    name: 'orders',
    entry: `${repoRoot()}apps/orders/dist/main.js`,
    port,
    env: {
      ORDERS_PORT: String(port),
      REDIS_URL: redis.url,
      DATABASE_URL: postgres.url,
      BULLMQ_PREFIX: PREFIX,
      INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
      // REQUESTS versions of one order, as fast as they go: above the per-order cap and the tenant rate limit.
      INVOICE_MAX_VERSIONS: String(REQUESTS),
      INVOICE_RATE_LIMIT: String(REQUESTS),
    },
  });
  const queue = new Queue('invoices', { connection: { url: redis.url }, prefix: PREFIX });
  const pool = postgres.pool();
  try {
    const { roundTrips, deliveries } = await requestInvoices(postTo(port));
    await report(await commitToEnqueue(deliveries, queue, pool), roundTrips);
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await pool.end();
    await orders.kill('SIGTERM');
    await redis.close();
    await postgres.close();
  }
}

await main();
