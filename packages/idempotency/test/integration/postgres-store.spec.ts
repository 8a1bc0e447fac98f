import { describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { recordStatements, waitFor } from '@retry-safe/testing';
import { IdempotencyErrorCode, jsonCodec } from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { freshTable, postgresWorld, suitePostgres } from './postgres-support.js';
import { countingAction, sleep } from './support.js';

// Postgres-only guarantees: concurrent migrations, fencing across expiry and sweep, bounded sweeps, server-side
// lock timeouts, round trips per call. (The shared behaviour suite covers the contract common to every store.)
const suite = suitePostgres();

const id = { operation: 'payment.charge.t1', key: 'k' };
const claimOf = (owner: string, extra: { leaseMs?: number; retainMs?: number } = {}) => ({
  ...id,
  owner,
  fingerprint: 'fp-a',
  leaseMs: extra.leaseMs ?? 10_000,
  retainMs: extra.retainMs ?? 60_000,
});

it('migrate() is safe to run from many processes at once', async () => {
  const table = freshTable();
  const stores = Array.from({ length: 8 }, () => new PostgresIdempotencyStore(suite.pool, { table }));
  const results = await Promise.allSettled(stores.map((s) => s.migrate()));
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  await expect(stores[0]!.claim(claimOf('o1'))).resolves.toMatchObject({ status: 'acquired' });
  await stores[0]!.migrate(); // and again later, on a table in use
  await expect(stores[1]!.claim(claimOf('o2'))).resolves.toMatchObject({ status: 'in_progress' });
});

describe('fencing tokens strictly increase for the life of a key', () => {
  it('across an expired row that is taken over', async () => {
    const { store } = await postgresWorld(suite.pool);
    const first = await store.claim(claimOf('o1', { leaseMs: 100, retainMs: 1_000 }));
    await sleep(1_100);
    const second = await store.claim(claimOf('o2'));
    expect(first).toEqual({ status: 'acquired', fencingToken: 1 });
    expect(second).toEqual({ status: 'acquired', fencingToken: 2 });
  });

  it('across a row that expired and was swept (the sweep raises the floor past every token it deletes)', async () => {
    const { store, table } = await postgresWorld(suite.pool);
    const tokens: number[] = [];
    for (let round = 0; round < 3; round++) {
      const claim = await store.claim(claimOf(`o${round}`, { leaseMs: 100, retainMs: 1_000 }));
      if (claim.status !== 'acquired') throw new Error(`expected a grant, got ${claim.status}`);
      tokens.push(claim.fencingToken);
      await store.complete({ ...id, owner: `o${round}`, payload: '{}', ttlMs: 1_000 });
      await sleep(1_050);
      expect(await store.sweepExpired()).toBe(1);
      expect((await suite.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
    }
    expect(tokens).toEqual([1, 2, 3]);
  });
});

it('sweeps expired rows in bounded batches and never touches live ones', async () => {
  const { store, table } = await postgresWorld(suite.pool, { sweepBatchSize: 10, sweepIntervalMs: 0 });
  await suite.pool.query(
    `INSERT INTO ${table} SELECT 'op', 'expired-' || i, 'c', 1, NULL, 'fp', NULL, clock_timestamp() - interval '1 s', 1, '{}'
       FROM generate_series(1, 25) i`,
  );
  await suite.pool.query(
    `INSERT INTO ${table} SELECT 'op', 'live-' || i, 'c', 1, NULL, 'fp', NULL, clock_timestamp() + interval '1 h', 1, '{}'
       FROM generate_series(1, 5) i`,
  );
  const swept = [await store.sweepExpired(), await store.sweepExpired(), await store.sweepExpired()];
  expect(swept).toEqual([10, 10, 5]);
  expect(await store.sweepExpired()).toBe(0);
  const { rows } = await suite.pool.query(`SELECT key FROM ${table} ORDER BY key`);
  expect(rows.map((r) => r.key)).toEqual(['live-1', 'live-2', 'live-3', 'live-4', 'live-5']);
});

it('sweeps on its own every sweepIntervalMs, also when it is only used in transactions', async () => {
  const w = await postgresWorld(suite.pool, { sweepIntervalMs: 200 });
  await suite.pool.query(
    `INSERT INTO ${w.table} VALUES ('op', 'expired', 'c', 7, NULL, 'fp', NULL, clock_timestamp() - interval '1 s', 1, '{}')`,
  );
  const client = await suite.pool.connect();
  await client.query('BEGIN');
  await w.store.inTransaction(client).claim({ ...claimOf('o1'), key: 'k-tx' });
  await client.query('COMMIT');
  client.release();

  // Bounded by the interval: a few rounds of 200 ms, not a guess at how long a sweep takes.
  await waitFor(
    'the sweep',
    async () => {
      const { rows } = await suite.pool.query(`SELECT key FROM ${w.table} ORDER BY key`);
      if (rows.length !== 1) throw new Error(`rows: ${JSON.stringify(rows)}`);
      return rows;
    },
    { timeoutMs: 200 * 10 },
  );
  expect((await suite.pool.query(`SELECT floor FROM ${w.table}__fence`)).rows).toEqual([{ floor: '7' }]);
  await w.close();
});

it('a value the codec cannot encode is recorded (state e): the action runs once, every call is refused', async () => {
  const w = await postgresWorld(suite.pool);
  const coordinator = w.coordinator({ inFlight: 'raise' });
  const action = countingAction();
  const request = { ...w.request('k-e'), codec: jsonCodec<unknown>() };
  const unencodable = async (ctx: { fencingToken: number }) => ({ ...(await action.run(ctx)), n: 1n });
  const errors = [];
  for (let i = 0; i < 3; i++)
    errors.push(await coordinator.coordinate(request, unencodable).catch((e: unknown) => e));

  expect(action.executions).toBe(1);
  for (const error of errors) expect(error).toMatchObject({ code: IdempotencyErrorCode.UnencodableResult });
  const { rows } = await suite.pool.query(`SELECT state, payload FROM ${w.table}`);
  expect(rows).toEqual([{ state: 'e', payload: null }]);
  await w.close();
});

it('an expired row counts as absent even before it is swept', async () => {
  const w = await postgresWorld(suite.pool, { sweepIntervalMs: 0 });
  const coordinator = w.coordinator({ inFlight: 'raise' });
  const action = countingAction();
  await coordinator.coordinate(w.request('k-exp', { ttlMs: 1_000 }), action.run);
  await sleep(1_050);
  expect(await w.records()).toEqual([]);
  await expect(coordinator.coordinateWithOutcome(w.request('k-exp'), action.run)).resolves.toMatchObject({
    outcome: 'executed',
    fencingToken: 2,
  });
  expect(action.executions).toBe(2);
  await w.close();
});

it('a claim blocked by a row lock is ended by the server (lock_timeout) and answers in progress', async () => {
  const w = await postgresWorld(suite.pool, { commandTimeoutMs: 300 });
  // Another session holds the record's row lock in an open transaction (e.g. a transactional owner).
  const holder = await suite.pool.connect();
  await holder.query('BEGIN');
  await holder.query(
    `INSERT INTO ${w.table} VALUES ('payment.charge.t1', 'k-locked', 'r', 1, 'x', 'fp-a', NULL,
       clock_timestamp() + interval '1 h', 1, NULL)`,
  );
  const action = countingAction();
  const started = Date.now();
  const error = await w
    .coordinator({ inFlight: 'raise' })
    .coordinate(w.request('k-locked'), action.run)
    .catch((e: unknown) => e);
  const elapsed = Date.now() - started;
  await holder.query('ROLLBACK');
  holder.release();

  // The database's own answer (SQLSTATE 55P03 lock_not_available, within the command timeout): the key is held by
  // an uncommitted claim, so it is in progress, not the store unavailable (issue 25; postgres-held-by-transaction).
  expect(error).toMatchObject({ code: IdempotencyErrorCode.InProgress });
  expect(elapsed).toBeLessThan(300 + 700);
  expect(action.executions).toBe(0);
  await w.close();
});

describe('round trips per call', () => {
  /** A pool whose statements are recorded (each is one round trip in the extended protocol). */
  function countingPool(): { pool: pg.Pool; statements: string[] } {
    const counted = suite.server.pool({ max: 4 });
    return { pool: counted, statements: recordStatements(counted) };
  }

  it('standalone: first execution 2, replay 1, key reuse 1', async () => {
    const { pool: counted, statements } = countingPool();
    const w = await postgresWorld(counted, { sweepIntervalMs: 0 });
    const coordinator = w.coordinator({ inFlight: 'raise' });
    const action = countingAction();
    const measure = async (call: () => Promise<unknown>) => {
      statements.length = 0;
      await call().catch(() => undefined);
      return statements.map((s) => s.match(/__(\w+)"\(/)?.[1]);
    };

    expect(await measure(() => coordinator.coordinate(w.request('k-rt'), action.run))).toEqual([
      'claim',
      'complete',
    ]);
    expect(await measure(() => coordinator.coordinate(w.request('k-rt'), action.run))).toEqual(['claim']);
    expect(
      await measure(() => coordinator.coordinate(w.request('k-rt', { fingerprint: 'other' }), action.run)),
    ).toEqual(['claim']);
    await w.close();
    await counted.end();
  });

  // The claim is preceded by the transaction-local mark it checks (the proof it runs inside one open transaction).
  it('transactional: claim and complete beside the business statements; a replay adds 2', async () => {
    const { pool: counted, statements } = countingPool();
    const w = await postgresWorld(counted, { sweepIntervalMs: 0 });
    const coordinator = w.coordinator();
    const client = await counted.connect();
    const request = { ...w.request('k-rt-tx'), codec: jsonCodec<{ n: number }>() };
    const place = async () => {
      statements.length = 0;
      await client.query('BEGIN');
      await coordinator.coordinateInTransaction(client, request, async ({ transaction }) => {
        await transaction.query('SELECT 1');
        return { n: 1 };
      });
      await client.query('COMMIT');
      return statements.map((s) => s.match(/__(\w+)"\(/)?.[1] ?? s);
    };

    const mark = "SELECT set_config('retry_safe.open_transaction', 'on', true)";
    // tx_complete: the complete of the claim's own transaction, whose row lock is the lease (schema version 2).
    expect(await place()).toEqual(['BEGIN', mark, 'claim', 'SELECT 1', 'tx_complete', 'COMMIT']);
    expect(await place()).toEqual(['BEGIN', mark, 'claim', 'COMMIT']);
    client.release();
    await w.close();
    await counted.end();
  });
});
