import { describe, expect, it } from '@jest/globals';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import { IdempotencyErrorCode, type SqlTransaction } from '../../src/index.js';
import { kyselyTransaction } from '../../src/postgres/index.js';
import { ordersWorld, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';

// coordinateInTransaction refuses what is not one open transaction before the action runs, and its fencing
// tokens never repeat under any isolation level.
const suite = suitePostgres();

describe('misuse is refused before the action: IDEMPOTENCY_INVALID_OPTIONS, nothing left behind', () => {
  const refuses = async (w: OrdersWorld, transaction: SqlTransaction) => {
    const error = await w.coordinator
      .coordinateInTransaction(transaction, w.request('k-misuse'), ({ transaction: tx }) =>
        w.placeOrder(tx as unknown as pg.ClientBase, 'k-misuse'),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: IdempotencyErrorCode.InvalidOptions });
    expect(w.executions).toBe(0);
    expect(await w.counts('k-misuse')).toEqual({ orders: 0, records: 0 });
  };

  it('a Pool', async () => {
    const w = await ordersWorld(suite.pool);
    await refuses(w, suite.pool);
    await w.store.close();
  });

  it('a client without BEGIN', async () => {
    const w = await ordersWorld(suite.pool);
    const client = await suite.pool.connect();
    try {
      await refuses(w, client);
    } finally {
      client.release();
    }
    await w.store.close();
  });

  it('a Kysely instance (not a transaction of it)', async () => {
    const w = await ordersWorld(suite.pool);
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: suite.pool }) });
    await refuses(w, kyselyTransaction(db));
    await w.store.close();
  });
});

describe('isolation levels', () => {
  it.each(['REPEATABLE READ', 'SERIALIZABLE'])(
    '%s: a key swept after the snapshot never gets a token again (the floor is locked, or the retry conflicts)',
    async (level) => {
      const w = await ordersWorld(suite.pool);
      const client = await suite.pool.connect();
      try {
        await client.query(`BEGIN ISOLATION LEVEL ${level}`);
        await client.query('SELECT 1'); // the snapshot
        // Meanwhile another process runs the key, its record expires and is swept (the floor is raised to 1).
        const first = await w.placeOnce('k-rr');
        expect(first.fencingToken).toBe(1);
        await suite.pool.query(`UPDATE ${w.table} SET expires_at = clock_timestamp() - interval '1 s'`);
        expect(await w.store.sweepExpired()).toBe(1);

        const late = await w.coordinator
          .coordinateInTransactionWithOutcome(client, w.request('k-rr'), ({ transaction }) =>
            w.placeOrder(transaction, 'k-rr'),
          )
          .catch((e: unknown) => e);
        expect(late).toMatchObject({ code: IdempotencyErrorCode.TransactionConflict, sqlState: '40001' });
        await client.query('ROLLBACK');

        const retried = await withTransaction(
          suite.pool,
          (tx) =>
            w.coordinator.coordinateInTransactionWithOutcome(tx, w.request('k-rr'), ({ transaction }) =>
              w.placeOrder(transaction, 'k-rr'),
            ),
          `BEGIN ISOLATION LEVEL ${level}`,
        );
        expect(retried).toMatchObject({ outcome: 'executed', fencingToken: 2 });
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
        await w.store.close();
      }
    },
  );
});
