/**
 * `pnpm bench:sweep`: how many expiring idempotency records one replica's PostgreSQL sweeper deletes per second,
 * and what the claimers get meanwhile. Starts a private PostgreSQL (`BENCH_DURABLE=1`: fsync on), fills a table
 * with `SWEEP_BENCH_ROWS` (default 100 000) expired records, and starts a store on it: its sweeper (started by
 * `migrate()`, batches of `sweepBatchSize`, default 1 000, until one comes back short) clears them while
 * `SWEEP_BENCH_CLAIMERS` (default 8) callers run fresh-key calls (claim + complete) on the same pool. Baselines in
 * the same run: one bare `DELETE ... WHERE expires_at <= now()` of the same rows (no batching, no fencing floor),
 * and the claimers' rate with no sweep, for as long as the sweep took. Writes bench/results/sweep.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { IdempotencyCoordinator, jsonCodec } from '@retry-safe/idempotency';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { sleep, startPrivatePostgres } from '@retry-safe/testing';
import type pg from 'pg';
import { positiveInt } from './support/env.js';
import { repoRoot } from './support/repo-root.js';
import { round } from './support/stats.js';

const ROWS = positiveInt('SWEEP_BENCH_ROWS', 100_000);
const CLAIMERS = positiveInt('SWEEP_BENCH_CLAIMERS', 8);
const BATCH = positiveInt('SWEEP_BENCH_BATCH', 1_000);

/** Fills `table` (migrated) with `ROWS` completed records that expired a second ago. */
async function fillExpired(pool: pg.Pool, table: string): Promise<void> {
  await pool.query(
    `INSERT INTO ${table} SELECT 'bench.op', 'expired-' || i, 'c', i, 'o', 'fp', NULL,
       clock_timestamp() - interval '1 s', 1, '{"id":"ch_1","amount":4999}' FROM generate_series(1, ${ROWS}) i`,
  );
  await pool.query(`VACUUM ANALYZE ${table}`);
}

const expiredLeft = async (pool: pg.Pool, table: string): Promise<boolean> =>
  (await pool.query(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE expires_at <= clock_timestamp()) AS any`))
    .rows[0].any as boolean;

/** Runs fresh-key calls on `CLAIMERS` callers until `stop()`; resolves with how many completed. */
function claimers(store: PostgresIdempotencyStore): { stop(): Promise<number> } {
  const coordinator = new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 });
  const codec = jsonCodec<{ n: number }>();
  let running = true;
  let done = 0;
  const loops = Array.from({ length: CLAIMERS }, async () => {
    while (running) {
      const key = randomUUID();
      await coordinator.coordinate(
        { operation: 'bench.claim', key, ttlMs: 3_600_000, codec, fingerprint: 'fp' },
        async () => ({ n: done }),
      );
      done += 1;
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return done;
    },
  };
}

async function main(): Promise<void> {
  const server = await startPrivatePostgres({ durable: process.env['BENCH_DURABLE'] === '1' });
  const pool = server.pool({ max: CLAIMERS + 2 });
  try {
    // Baseline 1: one bare DELETE of the same expired rows.
    const bare = 'bench_bare';
    await new PostgresIdempotencyStore(pool, { table: bare, sweepIntervalMs: 0 }).migrate();
    await fillExpired(pool, bare);
    let started = process.hrtime.bigint();
    const deleted =
      (await pool.query(`DELETE FROM ${bare} WHERE expires_at <= clock_timestamp()`)).rowCount ?? 0;
    const bareSeconds = Number(process.hrtime.bigint() - started) / 1e9;

    // The sweeper, with the claimers running on the same pool.
    const table = 'bench_swept';
    const setup = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
    await setup.migrate();
    await fillExpired(pool, table);
    const store = new PostgresIdempotencyStore(pool, {
      table,
      sweepBatchSize: BATCH,
      sweepIntervalMs: 3_600_000,
    });
    const during = claimers(store);
    started = process.hrtime.bigint();
    await store.migrate(); // starts the sweeper: its first round runs at once
    while (await expiredLeft(pool, table)) await sleep(20);
    const sweepSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const claimsDuring = await during.stop();
    await store.close();

    // Baseline 2: the claimers alone, for as long as the sweep took.
    const quiet = new PostgresIdempotencyStore(pool, { table: 'bench_quiet', sweepIntervalMs: 0 });
    await quiet.migrate();
    const alone = claimers(quiet);
    await sleep(Math.max(1_000, sweepSeconds * 1_000));
    const claimsAlone = await alone.stop();
    const aloneSeconds = Math.max(1, sweepSeconds);

    const result = {
      rows: ROWS,
      batch: BATCH,
      claimers: CLAIMERS,
      durable: process.env['BENCH_DURABLE'] === '1',
      bareDelete: {
        deleted,
        seconds: round(bareSeconds, 3),
        rowsPerSecond: Math.round(deleted / bareSeconds),
      },
      sweeper: { seconds: round(sweepSeconds, 3), rowsPerSecond: Math.round(ROWS / sweepSeconds) },
      sweeperVsBare: round(ROWS / sweepSeconds / (deleted / bareSeconds), 3),
      claimsPerSecondWhileSweeping: Math.round(claimsDuring / sweepSeconds),
      claimsPerSecondAlone: Math.round(claimsAlone / aloneSeconds),
    };
    console.log(JSON.stringify(result, null, 2));
    const dir = `${repoRoot()}/bench/results`;
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/sweep.json`, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await pool.end();
    await server.close();
  }
}

await main();
