/**
 * `pnpm bench:peers` (second part): Postgres-backed idempotency side by side on one private PostgreSQL, in one run.
 * Ours (standalone and transactional) against the common hand-rolled design, `INSERT ... ON CONFLICT DO NOTHING`
 * then `SELECT` (standalone, and inside the business transaction). The registry has no Postgres-backed idempotency
 * library to add (see docs/benchmarks.md). Per design: first execution and replay p50/p99 (interleaved), statements
 * per call, 100 concurrent calls on one key, and whether a key recovers after its owner crashed before completing.
 * Writes bench/results/postgres-peers.json.
 *
 * Environment (optional): BENCH_SAMPLES (default 2000).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import { order, startPostgresBench, type Order, type PostgresBench } from './support/postgres-fixture.js';
import { measureInterleaved, round, type LatencySummary } from './support/stats.js';
import { positiveInt } from './support/env.js';

const SAMPLES = positiveInt('BENCH_SAMPLES', 2_000);
const CONTENDERS = 100;

/** One design: `call(key, action)` returns the order (run or replayed) or throws "in progress". */
interface Design {
  readonly name: string;
  call(key: string, action: (db: pg.ClientBase, key: string) => Promise<Order>): Promise<Order>;
  /** Leaves a claimed-but-never-completed record for `key`, as an owner that crashed would. */
  crash(key: string): Promise<void>;
}

const HAND_ROLLED_TABLE = `CREATE TABLE hand_rolled_keys (key text PRIMARY KEY, response text)`;

/** Our coordinator and the hand-rolled baseline, each standalone and inside the business transaction. */
function designs(bench: PostgresBench): Design[] {
  return [...ourDesigns(bench), ...handRolledDesigns(bench.pool)];
}

function ourDesigns(bench: PostgresBench): Design[] {
  const { pool, coordinator, store } = bench;
  return [
    {
      name: '@retry-safe/idempotency/postgres, standalone (ours)',
      call: (key, action) =>
        coordinator.coordinate({ ...bench.request(key), leaseMs: 200 }, async () => {
          const client = await pool.connect();
          try {
            return await action(client, key);
          } finally {
            client.release();
          }
        }),
      crash: async (key) =>
        void (await store.claim({
          operation: bench.request(key).operation,
          key,
          fingerprint: bench.request(key).fingerprint ?? '',
          owner: 'crashed',
          leaseMs: 200,
          retainMs: 60_000,
        })),
    },
    {
      name: '@retry-safe/idempotency/postgres, in the transaction (ours)',
      call: (key, action) =>
        withTransaction(pool, (client) =>
          coordinator.coordinateInTransaction(client, bench.request(key), ({ transaction }) =>
            action(transaction, key),
          ),
        ),
      // A crashed owner's transaction rolls back: it leaves nothing behind.
      crash: async () => undefined,
    },
  ];
}

/** The baseline's reservation: true when this call inserted the key. */
async function claimHandRolled(db: pg.ClientBase, key: string): Promise<boolean> {
  const inserted = await db.query(
    'INSERT INTO hand_rolled_keys (key) VALUES ($1) ON CONFLICT DO NOTHING RETURNING key',
    [key],
  );
  return inserted.rowCount === 1;
}

async function replayHandRolled(db: pg.ClientBase, key: string): Promise<Order> {
  const { rows } = await db.query<{ response: string | null }>(
    'SELECT response FROM hand_rolled_keys WHERE key = $1',
    [key],
  );
  if (!rows[0]?.response) throw new Error('in progress');
  return JSON.parse(rows[0].response) as Order;
}

function completeHandRolled(db: pg.ClientBase, key: string, value: Order) {
  return db.query('UPDATE hand_rolled_keys SET response = $2 WHERE key = $1', [key, JSON.stringify(value)]);
}

function handRolledDesigns(pool: PostgresBench['pool']): Design[] {
  return [
    {
      name: 'hand-rolled INSERT ON CONFLICT + SELECT, standalone (baseline)',
      call: async (key, action) => {
        if (!(await claimHandRolled(pool as unknown as pg.ClientBase, key))) {
          return replayHandRolled(pool as unknown as pg.ClientBase, key);
        }
        const client = await pool.connect();
        try {
          const value = await action(client, key);
          await completeHandRolled(pool as unknown as pg.ClientBase, key, value);
          return value;
        } finally {
          client.release();
        }
      },
      crash: async (key) => void (await claimHandRolled(pool as unknown as pg.ClientBase, key)),
    },
    {
      name: 'hand-rolled INSERT ON CONFLICT + SELECT, in the transaction (baseline)',
      call: (key, action) =>
        withTransaction(pool, async (client) => {
          if (!(await claimHandRolled(client, key))) return replayHandRolled(client, key);
          const value = await action(client, key);
          await completeHandRolled(client, key, value);
          return value;
        }),
      crash: async () => undefined,
    },
  ];
}

interface DesignResult {
  name: string;
  firstMs: LatencySummary;
  replayMs: LatencySummary;
  firstToOurs?: number;
  replayToOurs?: number;
  statementsFirst: number;
  statementsReplay: number;
  contention: { runs: number; ok: number; errors: Record<string, number> };
  afterCrash: string;
}

async function main(): Promise<void> {
  const bench = await startPostgresBench(CONTENDERS + 8);
  await bench.pool.query(HAND_ROLLED_TABLE);
  const all = designs(bench);
  const insert = (db: pg.ClientBase, key: string) => bench.insertOrder(db, key);
  try {
    for (let i = 0; i < 300; i++) for (const d of all) await d.call(`warm-${d.name}-${i}`, insert);
    const timings = await measureInterleaved(SAMPLES, [
      ...all.map((d) => (i: number) => d.call(`first-${d.name}-${i}`, insert)),
      ...all.map((d) => (i: number) => d.call(`first-${d.name}-${i}`, insert)),
    ]);
    const results: DesignResult[] = [];
    for (const [index, design] of all.entries()) {
      results.push({
        name: design.name,
        firstMs: timings[index]!,
        replayMs: timings[all.length + index]!,
        statementsFirst: await countStatements(bench, () => design.call(`rt-${design.name}`, insert)),
        statementsReplay: await countStatements(bench, () => design.call(`rt-${design.name}`, insert)),
        contention: await contention(design, insert),
        afterCrash: await afterCrash(design, insert),
      });
    }
    const ours = results[0]!;
    const oursTx = results[1]!;
    for (const r of results) {
      const base = r.name.includes('transaction') ? oursTx : ours;
      r.firstToOurs = round(r.firstMs.p50 / base.firstMs.p50, 2);
      r.replayToOurs = round(r.replayMs.p50 / base.replayMs.p50, 2);
    }
    print(results);
    await mkdir(new URL('../results/', import.meta.url), { recursive: true });
    await writeFile(
      new URL('../results/postgres-peers.json', import.meta.url),
      `${JSON.stringify(
        {
          machine: { cpus: cpus().length, loadavg: loadavg().map((l) => round(l, 2)), node: process.version },
          samples: SAMPLES,
          results,
        },
        null,
        2,
      )}\n`,
    );
    console.log('\nwritten to bench/results/postgres-peers.json');
  } finally {
    await bench.close();
  }
}

async function countStatements(bench: PostgresBench, call: () => Promise<unknown>): Promise<number> {
  bench.statements.length = 0;
  await call();
  return bench.statements.length;
}

/** 100 concurrent calls on one key; the action takes 50 ms. How often did it run, and what did the others get? */
async function contention(design: Design, insert: (db: pg.ClientBase, key: string) => Promise<Order>) {
  let runs = 0;
  const key = `contended-${design.name}`;
  const action = async (db: pg.ClientBase, k: string) => {
    runs += 1;
    await sleep(50);
    return insert(db, k);
  };
  const settled = await Promise.allSettled(
    Array.from({ length: CONTENDERS }, () => design.call(key, action)),
  );
  const errors: Record<string, number> = {};
  for (const s of settled) {
    if (s.status === 'rejected') {
      const label = String((s.reason as { code?: string }).code ?? (s.reason as Error).message);
      errors[label] = (errors[label] ?? 0) + 1;
    }
  }
  return { runs, ok: settled.filter((s) => s.status === 'fulfilled').length, errors };
}

/** The owner crashed after claiming: can a retry 250 ms later run the action, or is the key stuck? */
async function afterCrash(design: Design, insert: (db: pg.ClientBase, key: string) => Promise<Order>) {
  const key = `crashed-${design.name}`;
  await design.crash(key);
  await sleep(250);
  return design.call(key, insert).then(
    () => 'retry runs',
    (e: unknown) => `stuck: ${String((e as { code?: string }).code ?? (e as Error).message)}`,
  );
}

function print(results: readonly DesignResult[]): void {
  console.log(
    `\nPostgres-backed idempotency, one PostgreSQL, ${SAMPLES} samples each (Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}); the action inserts one order (${JSON.stringify(order).length} bytes)\n`,
  );
  console.log(
    '| design | first p50 ms | first p99 ms | replay p50 ms | replay p99 ms | first / ours | replay / ours | statements first / replay | 100 calls, 1 key | owner crashed, retry 250 ms later |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const errors = Object.entries(r.contention.errors)
      .map(([label, n]) => `${n} ${label}`)
      .join(', ');
    console.log(
      `| ${r.name} | ${r.firstMs.p50.toFixed(3)} | ${r.firstMs.p99.toFixed(3)} | ${r.replayMs.p50.toFixed(3)} | ${r.replayMs.p99.toFixed(3)} | ${r.firstToOurs?.toFixed(2)}x | ${r.replayToOurs?.toFixed(2)}x | ${r.statementsFirst} / ${r.statementsReplay} | **${r.contention.runs}** run(s); ${r.contention.ok} ok${errors ? `, ${errors}` : ''} | ${r.afterCrash} |`,
    );
  }
}

await main();
