/**
 * `pnpm bench` (second part): the Postgres store against the statements it adds to, on a private PostgreSQL, in one
 * run. Standalone first execution and replay against a `SELECT 1` round trip on the same pool; transactional first
 * execution (claim + one business INSERT + complete, one transaction) against the same business transaction without
 * the record; transactional replay against a bare primary-key SELECT in the same open transaction. Also statements
 * (round trips) per call, bytes per stored record, and the LISTEN/NOTIFY wake-up. Writes bench/results/postgres.json
 * (or postgres-durable.json with BENCH_DURABLE=1: fsync on, each commit waits for the disk).
 *
 * Environment (optional): BENCH_SAMPLES (default 3000), BENCH_DURABLE (default off).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { IdempotencyCoordinator } from '@retry-safe/idempotency';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { withTransaction } from '@retry-safe/testing';
import { order, startPostgresBench, type PostgresBench } from './support/postgres-fixture.js';
import { measureInterleaved, round, type LatencySummary } from './support/stats.js';
import { measureWakeUp } from './support/wake-up.js';
import { positiveInt } from './support/env.js';

const SAMPLES = positiveInt('BENCH_SAMPLES', 3_000);
const WAKE_SAMPLES = Math.min(300, SAMPLES);

/** Statements one call sends, by name (`claim`, `complete`, or the SQL itself). */
async function statementsOf(bench: PostgresBench, call: () => Promise<unknown>): Promise<string[]> {
  bench.statements.length = 0;
  await call();
  return bench.statements.map((s) => /__(\w+)"\(/.exec(s)?.[1] ?? s.split(/\s/)[0]!);
}

const standaloneAction = async () => ({ ...order, id: '1' });

/** A transactional first execution: claim, the business INSERT and complete in one transaction. */
const txFirst = (bench: PostgresBench, key: string) =>
  withTransaction(bench.pool, (client) =>
    bench.coordinator.coordinateInTransaction(client, bench.request(key), ({ transaction }) =>
      bench.insertOrder(transaction, key),
    ),
  );

async function warmUp(bench: PostgresBench): Promise<void> {
  const { pool, coordinator } = bench;
  for (let i = 0; i < 1_000; i++) {
    await pool.query('SELECT 1');
    await coordinator.coordinate(bench.request(`warm-${i}`), standaloneAction);
    await coordinator.coordinate(bench.request(`warm-${i}`), standaloneAction);
    await txFirst(bench, `warm-tx-${i}`);
    await withTransaction(pool, (client) => bench.insertOrder(client, `warm-b-${i}`));
  }
}

type PoolLatencies = Record<
  'select1' | 'pkPool' | 'first' | 'replay' | 'business' | 'transactional',
  LatencySummary
>;

/** Interleaved on the pool: the floors (SELECT 1, a PK SELECT, the business transaction) and our calls. */
async function measureOnPool(bench: PostgresBench): Promise<PoolLatencies> {
  const { pool, coordinator } = bench;
  const pk = {
    name: 'bench-pk',
    text: 'SELECT * FROM idempotency_records WHERE operation = $1 AND key = $2',
  };
  const [select1, pkPool, first, replay, business, transactional] = await measureInterleaved(SAMPLES, [
    () => pool.query('SELECT 1'),
    (i) => pool.query({ ...pk, values: ['orders.place.t1', `warm-${i % 1_000}`] }),
    (i) => coordinator.coordinate(bench.request(`first-${i}`), standaloneAction),
    (i) => coordinator.coordinate(bench.request(`first-${i}`), standaloneAction),
    (i) => withTransaction(pool, (client) => bench.insertOrder(client, `business-${i}`)),
    (i) => txFirst(bench, `tx-${i}`),
  ]);
  return { select1, pkPool, first, replay, business, transactional } as PoolLatencies;
}

/** A replay costs the caller one statement in the transaction it has open anyway: compare with one PK SELECT there. */
async function measureInTransaction(
  bench: PostgresBench,
): Promise<{ pkSelect: LatencySummary; txReplay: LatencySummary }> {
  const client = await bench.pool.connect();
  try {
    await client.query('BEGIN');
    const [pkSelect, txReplay] = (await measureInterleaved(SAMPLES, [
      (i) => client.query('SELECT * FROM orders WHERE id = $1', [i + 1]),
      (i) =>
        bench.coordinator.coordinateInTransaction(client, bench.request(`tx-${i}`), () => {
          throw new Error('a replay must not run the action');
        }),
    ])) as [LatencySummary, LatencySummary];
    await client.query('COMMIT');
    return { pkSelect, txReplay };
  } finally {
    client.release();
  }
}

async function roundTripsOf(bench: PostgresBench): Promise<Record<string, string[]>> {
  const standalone = () => bench.coordinator.coordinate(bench.request('rt-1'), standaloneAction);
  return {
    standaloneFirst: await statementsOf(bench, standalone),
    standaloneReplay: await statementsOf(bench, standalone),
    transactionalFirst: await statementsOf(bench, () => txFirst(bench, 'rt-tx-1')),
    transactionalReplay: await statementsOf(bench, () => txFirst(bench, 'rt-tx-1')),
  };
}

async function main(): Promise<void> {
  const bench = await startPostgresBench();
  try {
    await warmUp(bench);
    const onPool = await measureOnPool(bench);
    const inTransaction = await measureInTransaction(bench);
    const roundTrips = await roundTripsOf(bench);
    const wake = await wakeUp(bench);
    const storage = await storedBytes(bench);
    const postgres = (await bench.pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;

    const results = resultsOf(
      postgres,
      { ...onPool, ...inTransaction },
      { roundTrips, wakeUpMs: wake, storage },
    );
    printResults(results);
    await mkdir(new URL('../results/', import.meta.url), { recursive: true });
    const file = results.durable ? 'postgres-durable.json' : 'postgres.json';
    await writeFile(new URL(`../results/${file}`, import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nwritten to bench/results/${file}`);
  } finally {
    await bench.close();
  }
}

/** The figures of the run as bench/results/postgres.json holds them. */
function resultsOf<Rest extends { storage: unknown }>(
  postgres: string,
  latencies: PoolLatencies & { pkSelect: LatencySummary; txReplay: LatencySummary },
  rest: Rest,
) {
  const { select1, pkPool, first, replay, business, transactional, pkSelect, txReplay } = latencies;
  return {
    machine: { cpus: cpus().length, loadavg: loadavg().map((l) => round(l, 2)), node: process.version },
    postgres,
    samples: SAMPLES,
    durable: process.env['BENCH_DURABLE'] === '1',
    select1Ms: select1,
    pkSelectOnPoolMs: pkPool,
    standaloneFirstMs: first,
    standaloneReplayMs: replay,
    businessTransactionMs: business,
    transactionalFirstMs: transactional,
    pkSelectInTransactionMs: pkSelect,
    transactionalReplayMs: txReplay,
    standaloneFirstToSelect1: round(first.p50 / select1.p50, 2),
    standaloneReplayToSelect1: round(replay.p50 / select1.p50, 2),
    pkSelectToSelect1: round(pkPool.p50 / select1.p50, 2),
    transactionalFirstToBusiness: round(transactional.p50 / business.p50, 2),
    transactionalReplayToPkSelect: round(txReplay.p50 / pkSelect.p50, 2),
    ...rest,
    goals: {
      standaloneFirstToSelect1AtMost: 2.5,
      standaloneReplayToSelect1AtMost: 1.25,
      transactionalFirstToBusinessAtMost: 1.35,
      transactionalReplayToPkSelectAtMost: 1.25,
    },
  };
}

type Results = ReturnType<
  typeof resultsOf<{
    roundTrips: Record<string, string[]>;
    wakeUpMs: LatencySummary;
    storage: Awaited<ReturnType<typeof storedBytes>>;
  }>
>;

function printResults(results: Results): void {
  const { storage } = results;
  const row = (name: string, s: LatencySummary, ratio?: string) =>
    `${name.padEnd(34)} p50 ${s.p50.toFixed(3).padStart(7)} ms   p99 ${s.p99.toFixed(3).padStart(7)} ms${ratio ? `   ${ratio}` : ''}`;
  console.log(
    `\nretry-safe Postgres store benchmark (${SAMPLES} samples each, PostgreSQL ${results.postgres}, fsync ${results.durable ? 'on' : 'off'}, Node ${process.version}, load ${results.machine.loadavg.join(' ')})\n`,
  );
  const x = (ratio: number, of: string, goal = '') => `${ratio.toFixed(2)}x ${of}${goal}`;
  const rows: [string, LatencySummary, string?][] = [
    ['SELECT 1 on the pool', results.select1Ms],
    [
      'PK SELECT on the pool (replay floor)',
      results.pkSelectOnPoolMs,
      x(results.pkSelectToSelect1, 'SELECT 1'),
    ],
    [
      'standalone first execution',
      results.standaloneFirstMs,
      x(results.standaloneFirstToSelect1, 'SELECT 1', '   (goal <= 2.5x)'),
    ],
    [
      'standalone replay',
      results.standaloneReplayMs,
      x(results.standaloneReplayToSelect1, 'SELECT 1', '   (goal <= 1.25x)'),
    ],
    ['business transaction (BEGIN/INSERT/COMMIT)', results.businessTransactionMs],
    [
      'transactional first execution',
      results.transactionalFirstMs,
      x(results.transactionalFirstToBusiness, 'business', '   (goal <= 1.35x)'),
    ],
    ['PK SELECT in an open transaction', results.pkSelectInTransactionMs],
    [
      'transactional replay',
      results.transactionalReplayMs,
      x(results.transactionalReplayToPkSelect, 'PK SELECT', '   (goal <= 1.25x)'),
    ],
    ['wait-mode wake-up (LISTEN/NOTIFY)', results.wakeUpMs],
  ];
  for (const [name, summary, ratio] of rows) console.log(row(name, summary, ratio));
  for (const [name, statements] of Object.entries(results.roundTrips)) {
    console.log(`${`round trips, ${name}`.padEnd(34)} ${statements.length}: ${statements.join(', ')}`);
  }
  console.log(
    `${'bytes per stored record'.padEnd(34)} ${storage.rowBytes} row (pg_column_size) + ${storage.indexBytesPerRow} in indexes; ${storage.totalBytesPerRow} with free space (pg_total_relation_size / ${storage.rows} rows)`,
  );
}

/** Wait-mode wake-up; the waiter is another store (another process), woken by LISTEN/NOTIFY. */
async function wakeUp(bench: PostgresBench): Promise<LatencySummary> {
  const waiterStore = new PostgresIdempotencyStore(bench.pool, {
    table: 'idempotency_records',
    sweepIntervalMs: 0,
  });
  try {
    return await measureWakeUp({
      samples: WAKE_SAMPLES,
      owner: bench.coordinator,
      waiter: new IdempotencyCoordinator(waiterStore, { inFlight: 'wait', leaseMs: 30_000 }),
      request: bench.request,
      result: (i) => ({ ...order, id: String(i) }),
      settleMs: 5,
    });
  } finally {
    await waiterStore.close();
  }
}

async function storedBytes(bench: PostgresBench) {
  await bench.pool.query('VACUUM ANALYZE idempotency_records');
  const { rows } = await bench.pool.query<{ rows: string; row: string; indexes: string; total: string }>(
    `SELECT count(*) AS rows, avg(pg_column_size(t.*)) AS row,
            pg_indexes_size('idempotency_records') AS indexes, pg_total_relation_size('idempotency_records') AS total
       FROM idempotency_records t`,
  );
  const r = rows[0]!;
  const count = Number(r.rows);
  return {
    rows: count,
    rowBytes: Math.round(Number(r.row)),
    indexBytesPerRow: Math.round(Number(r.indexes) / count),
    totalBytesPerRow: Math.round(Number(r.total) / count),
  };
}

await main();
