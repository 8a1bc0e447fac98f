import { expect, it } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { freshTable, suitePostgres } from './postgres-support.js';

// Issue 24, point 5: the record sweeper starts with the store (after migrate()), on every path, and clears a
// backlog in one round rather than at a fixed number of rows per interval.
const suite = suitePostgres();

const insertExpired = (table: string, count: number) =>
  suite.pool.query(
    `INSERT INTO ${table} SELECT 'op', 'expired-' || i, 'c', i, NULL, 'fp', NULL,
       clock_timestamp() + interval '300 ms', 1, '{}' FROM generate_series(1, ${count}) i`,
  );
const rowsLeft = async (table: string) =>
  (await suite.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

it("starts with migrate(): a store only ever written through insertCompletedSql's one statement sweeps", async () => {
  const table = freshTable();
  // A long interval: only the round that starts with the store (and nothing from a claim) can do it.
  const store = new PostgresIdempotencyStore(suite.pool, { table, sweepIntervalMs: 600 });
  try {
    await store.migrate();
    const { sql, values } = store.insertCompletedSql(1, {
      operation: 'op',
      key: 'fresh',
      owner: 'o',
      fingerprint: 'fp',
      payload: '{}',
      ttlMs: 200,
    });
    await suite.pool.query(sql, values);
    expect(await rowsLeft(table)).toBe(1);
    await waitFor(
      'the one-statement row swept',
      async () => {
        if ((await rowsLeft(table)) !== 0) throw new Error('still there');
        return true;
      },
      { timeoutMs: 3_000 },
    );
  } finally {
    await store.close();
  }
});

it('keeps deleting batches until one comes back short: a backlog of 25 batches goes in one round', async () => {
  const table = freshTable();
  await new PostgresIdempotencyStore(suite.pool, { table, sweepIntervalMs: 0 }).migrate();
  // This store starts sweeping with its first claim.
  const store = new PostgresIdempotencyStore(suite.pool, {
    table,
    sweepBatchSize: 100,
    sweepIntervalMs: 1_000,
  });
  try {
    await insertExpired(table, 2_500);
    const claim = {
      operation: 'op2',
      key: 'k',
      owner: 'o',
      fingerprint: 'fp',
      leaseMs: 9_000,
      retainMs: 9_000,
    };
    expect(await store.claim(claim)).toMatchObject({ status: 'acquired' });
    // The rows expire 300 ms after insertion; the round at 1 s must take all 2 500 (the old cap: 10 batches a
    // round), and leave the claim's live row.
    await waitFor(
      'the backlog swept in one round',
      async () => {
        const left = await rowsLeft(table);
        if (left !== 1) throw new Error(`${left} left`);
        return true;
      },
      { timeoutMs: 1_900 },
    );
  } finally {
    await store.close();
  }
});
