import { beforeEach, describe, expect, it } from '@jest/globals';
import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from 'kysely';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import {
  makeIdempotentInTransaction,
  type IdempotencyContext,
  type IdempotentCallSettings,
  type SqlTransaction,
} from '../../src/index.js';
import { kyselyTransaction } from '../../src/postgres/index.js';
import { useOrdersWorld, type Order, type OrdersWorld } from './orders-world.js';

// makeIdempotentInTransaction on PostgreSQL: the record commits or rolls back with the caller's own write, through a
// node-postgres PoolClient and through a Kysely transaction.
const world = useOrdersWorld();
let w: OrdersWorld;
beforeEach(() => {
  w = world();
});

/** Thrown inside a Kysely transaction to roll it back. */
class Rollback extends Error {}

/** `place(client, key)`: one order through the caller's PoolClient, its settings whatever `settings.current` is. */
function placeWithClient() {
  const settings: { current: IdempotentCallSettings } = { current: {} };
  const transactions: pg.PoolClient[] = [];
  const place = makeIdempotentInTransaction(
    w.coordinator,
    // Annotated, so the context's transaction is the PoolClient that `transaction` returns.
    async (
      { transaction, key, operation }: IdempotencyContext & { readonly transaction: pg.PoolClient },
      _client: pg.PoolClient,
      orderKey: string,
    ) => {
      transactions.push(transaction);
      expect([operation, key]).toEqual(['orders.place', orderKey]);
      return w.placeOrder(transaction, orderKey);
    },
    {
      operation: 'orders.place',
      key: (_client, orderKey) => orderKey,
      fingerprint: (_client, orderKey) => ({ orderKey }),
      transaction: (client) => client,
      settings: () => settings.current,
    },
  );
  return { place, settings, transactions };
}

/** `place(trx, key)`: one order written with Kysely, the record kept in the same transaction by the adapter. */
function placeWithKysely() {
  const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool: w.pool }) });
  const place = makeIdempotentInTransaction(
    w.coordinator,
    async ({ fencingToken }, trx: Transaction<Record<string, never>>, orderKey: string): Promise<Order> => {
      expect(fencingToken).toBeGreaterThan(0);
      w.executions += 1;
      const { rows } = await trx.executeQuery<Order>(
        CompiledQuery.raw(`INSERT INTO ${w.orders} (key) VALUES ($1) RETURNING id, key`, [orderKey]),
      );
      return rows[0]!;
    },
    {
      operation: 'orders.place',
      key: (_trx, orderKey) => orderKey,
      transaction: (trx) => kyselyTransaction(trx),
    },
  );
  return { db, place };
}

describe('makeIdempotentInTransaction with a node-postgres PoolClient', () => {
  it('ROLLBACK takes the record with the order: neither is there, and a retry runs again', async () => {
    const { place, transactions } = placeWithClient();
    const client = await w.pool.connect();
    await client.query('BEGIN');
    const rolledBack = await place(client, 'k-rollback');
    await client.query('ROLLBACK');
    client.release();

    expect(rolledBack).toMatchObject({ outcome: 'executed', value: { key: 'k-rollback' } });
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toBe(client);
    expect(await w.counts('k-rollback')).toEqual({ orders: 0, records: 0 });

    const retried = await withTransaction(w.pool, (c) => place(c, 'k-rollback'));
    expect(retried).toMatchObject({ outcome: 'executed', value: { key: 'k-rollback' } });
    expect(w.executions).toBe(2);
    expect(await w.counts('k-rollback')).toEqual({ orders: 1, records: 1 });
  });

  it('COMMIT keeps the order and the record together: a retry replays and writes nothing', async () => {
    const { place } = placeWithClient();
    const first = await withTransaction(w.pool, (c) => place(c, 'k-commit'));
    const again = await withTransaction(w.pool, (c) => place(c, 'k-commit'));

    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-commit' } });
    expect(first.fencingToken).toBeGreaterThan(0);
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-commit')).toEqual({ orders: 1, records: 1 });
    expect(w.events.map((e) => e.type)).toEqual(['miss', 'hit']);
  });

  it("the off switch: the action writes through the caller's transaction every time, and no record is kept", async () => {
    const { place, settings, transactions } = placeWithClient();
    settings.current = { enabled: false };
    const clients: pg.PoolClient[] = [];
    const placeOff = () => withTransaction(w.pool, (c) => (clients.push(c), place(c, 'k-off')));
    const off = [await placeOff(), await placeOff()];

    expect(off.map((r) => [r.outcome, r.fencingToken])).toEqual([
      ['unprotected', 0],
      ['unprotected', 0],
    ]);
    expect(transactions).toHaveLength(2);
    transactions.forEach((transaction, i) => expect(transaction).toBe(clients[i]));
    expect(await w.counts('k-off')).toEqual({ orders: 2, records: 0 });
    expect(w.events).toEqual([]);

    settings.current = { enabled: true };
    const on = [
      await withTransaction(w.pool, (c) => place(c, 'k-off')),
      await withTransaction(w.pool, (c) => place(c, 'k-off')),
    ];
    expect(on.map((r) => r.outcome)).toEqual(['executed', 'replayed']);
    expect(await w.counts('k-off')).toEqual({ orders: 3, records: 1 });
  });

  it('a transaction function that returns no transaction rejects the call before anything runs', async () => {
    const place = makeIdempotentInTransaction(
      w.coordinator,
      async (_context, _key: string) => w.executions++,
      {
        operation: 'orders.place',
        key: (orderKey: string) => orderKey,
        transaction: () => ({}) as SqlTransaction,
      },
    );
    await expect(place('k-none')).rejects.toMatchObject({
      code: 'IDEMPOTENCY_INVALID_OPTIONS',
      key: 'k-none',
    });
    expect(w.executions).toBe(0);
    expect(await w.counts('k-none')).toEqual({ orders: 0, records: 0 });
  });
});

describe('makeIdempotentInTransaction with a Kysely transaction', () => {
  it('a rolled-back transaction leaves neither the order nor the record, and a retry runs again', async () => {
    const { db, place } = placeWithKysely();
    const outcome = await db
      .transaction()
      .execute(async (trx) => {
        await place(trx, 'k-kysely-rollback');
        throw new Rollback('the caller changed its mind');
      })
      .catch((e: unknown) => e);

    expect(outcome).toBeInstanceOf(Rollback);
    expect(w.executions).toBe(1);
    expect(await w.counts('k-kysely-rollback')).toEqual({ orders: 0, records: 0 });
    const retried = await db.transaction().execute((trx) => place(trx, 'k-kysely-rollback'));
    expect(retried).toMatchObject({ outcome: 'executed', value: { key: 'k-kysely-rollback' } });
    expect(w.executions).toBe(2);
    expect(await w.counts('k-kysely-rollback')).toEqual({ orders: 1, records: 1 });
  });

  it('a committed transaction keeps both: a retry replays and writes nothing', async () => {
    const { db, place } = placeWithKysely();
    const first = await db.transaction().execute((trx) => place(trx, 'k-kysely-commit'));
    const again = await db.transaction().execute((trx) => place(trx, 'k-kysely-commit'));

    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-kysely-commit' } });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-kysely-commit')).toEqual({ orders: 1, records: 1 });
  });
});

describe("the coordinator's transactional forms with enabled false", () => {
  it("coordinateInTransactionWithOutcome runs the action on the caller's transaction, without a record", async () => {
    const request = { ...w.request('k-tx-off'), enabled: false };
    const results = [];
    for (let i = 0; i < 2; i++) {
      results.push(
        await withTransaction(w.pool, (client) =>
          w.coordinator.coordinateInTransactionWithOutcome(client, request, async (context) => {
            expect(context).toMatchObject({ transaction: client, fencingToken: 0, protected: false });
            expect(context.signal.aborted).toBe(false);
            return w.placeOrder(context.transaction, 'k-tx-off');
          }),
        ),
      );
    }
    expect(results.map((r) => r.outcome)).toEqual(['unprotected', 'unprotected']);
    expect(await w.counts('k-tx-off')).toEqual({ orders: 2, records: 0 });
  });

  it('coordinateOptimisticallyWithOutcome runs the action once in a transaction of its runner, without a record', async () => {
    let transactions = 0;
    const result = await w.coordinator.coordinateOptimisticallyWithOutcome<Order, pg.PoolClient>(
      (work) => withTransaction(w.pool, (client) => (transactions++, work(client))),
      { ...w.request('k-opt-off'), enabled: false },
      ({ transaction, fencingToken }) => {
        expect(fencingToken).toBe(0);
        return w.placeOrder(transaction, 'k-opt-off');
      },
    );
    expect(result).toMatchObject({ outcome: 'unprotected', fencingToken: 0, value: { key: 'k-opt-off' } });
    expect(transactions).toBe(1);
    expect(w.executions).toBe(1);
    expect(await w.counts('k-opt-off')).toEqual({ orders: 1, records: 0 });
  });
});
