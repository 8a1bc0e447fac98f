import { randomInt } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import {
  IdempotencyErrorCode,
  makeIdempotentInOneStatement,
  type IdempotencyContext,
  type IdempotentCallSettings,
  type SqlTransaction,
  type StatementWrite,
} from '../../src/index.js';
import { useOrdersWorld, type Order } from './orders-world.js';

// makeIdempotentInOneStatement on PostgreSQL: a fresh key's order and its completed record are ONE autocommitted
// statement on the pool (no transaction); a key with a record goes through the claim in a transaction of the
// runner, where the action is asked again and its statement runs after the claim.
const w = useOrdersWorld();

interface Seen {
  asks: number;
  statements: number;
  transactions: number;
  contexts: Array<Pick<IdempotencyContext, 'operation' | 'key' | 'fencingToken'>>;
}

/** The order for `key` (its id chosen before the write) and the statement that inserts it through the record. */
function orderWrite(key: string, id = randomInt(1, 2 ** 31 - 1)): StatementWrite<Order> {
  return {
    value: { id, key },
    statement: {
      ctes: [`placed AS (INSERT INTO ${w().orders} (id, key) SELECT $1, $2 FROM idempotency_record)`],
      values: [id, key],
    },
  };
}

/** `place(key, amount)`: one order per key; the pool and the runner count what they are asked. */
function placeInOneStatement(
  options: { executor?: SqlTransaction; write?: (key: string) => StatementWrite<Order> } = {},
) {
  const settings: { current: IdempotentCallSettings } = { current: {} };
  const seen: Seen = { asks: 0, statements: 0, transactions: 0, contexts: [] };
  const pool = options.executor ?? w().pool;
  const place = makeIdempotentInOneStatement(
    w().coordinator,
    async ({ key, operation, fencingToken }: IdempotencyContext, orderKey: string, _amount: number) => {
      seen.asks += 1;
      seen.contexts.push({ operation, key, fencingToken });
      return (options.write ?? orderWrite)(orderKey);
    },
    {
      operation: 'orders.place',
      key: (orderKey) => orderKey,
      fingerprint: (_orderKey, amount) => ({ amount }),
      codec: w().request('').codec,
      executor: {
        query: (text: string, values?: unknown[]) => {
          seen.statements += 1;
          return pool.query(text, values);
        },
      },
      runInTransaction: (work) => {
        seen.transactions += 1;
        return withTransaction(w().pool, work);
      },
      settings: () => settings.current,
    },
  );
  return { place, settings, seen };
}

describe('makeIdempotentInOneStatement', () => {
  it('a fresh key: one statement and no transaction; a repeat replays the same value', async () => {
    const { place, seen } = placeInOneStatement();
    const first = await place('k-fresh', 10);
    expect(first).toEqual({
      value: { id: expect.any(Number), key: 'k-fresh' },
      outcome: 'executed',
      fencingToken: 1,
    });
    expect(seen).toMatchObject({ asks: 1, statements: 1, transactions: 0 });
    expect(seen.contexts).toEqual([{ operation: 'orders.place', key: 'k-fresh', fencingToken: 0 }]);

    await expect(place('k-fresh', 10)).resolves.toEqual({ ...first, outcome: 'replayed' });
    // The repeat's statement wrote nothing; the claim in a transaction replayed without asking the action.
    expect(seen).toMatchObject({ asks: 2, statements: 2, transactions: 1 });
    expect(await w().counts('k-fresh')).toEqual({ orders: 1, records: 1 });
  });

  it('refuses the key reused with another fingerprint, writing nothing more', async () => {
    const { place } = placeInOneStatement();
    await place('k-reuse', 10);
    await expect(place('k-reuse', 20)).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });
    expect(await w().counts('k-reuse')).toEqual({ orders: 1, records: 1 });
  });

  it('concurrent calls of one key: one order, every caller the same value', async () => {
    const { place } = placeInOneStatement();
    const results = await Promise.all(Array.from({ length: 6 }, () => place('k-race', 10)));
    expect(results.filter((r) => r.outcome === 'executed')).toHaveLength(1);
    expect(new Set(results.map((r) => JSON.stringify(r.value))).size).toBe(1);
    expect(await w().counts('k-race')).toEqual({ orders: 1, records: 1 });
  });

  it('a released record: the statement writes nothing, the claim runs the write once with its fencing token', async () => {
    // A failed earlier call whose transaction committed: the key's row is released.
    const client = await w().pool.connect();
    try {
      await client.query('BEGIN');
      await expect(
        w().coordinator.coordinateInTransaction(client, w().request('k-released', 'unused'), async () => {
          throw new Error('declined');
        }),
      ).rejects.toThrow('declined');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { place, seen } = placeInOneStatement();
    // The fingerprint of a released row is not compared: it is a new attempt.
    await expect(place('k-released', 10)).resolves.toMatchObject({ outcome: 'executed', fencingToken: 2 });
    expect(seen).toMatchObject({ asks: 2, statements: 1, transactions: 1 });
    expect(seen.contexts.map((c) => c.fencingToken)).toEqual([0, 2]);
    expect(await w().counts('k-released')).toEqual({ orders: 1, records: 1 });
  });

  it('an answer lost after the statement committed: the claim replays it, nothing is written twice', async () => {
    const lost: SqlTransaction = {
      query: async (text, values) => {
        await w().pool.query(text, values);
        throw Object.assign(new Error('connection terminated unexpectedly'), { code: '08006' });
      },
    };
    const { place, seen } = placeInOneStatement({ executor: lost });
    await expect(place('k-lost', 10)).resolves.toMatchObject({ outcome: 'replayed', fencingToken: 1 });
    expect(seen).toMatchObject({ asks: 1, statements: 1, transactions: 1 });
    expect(await w().counts('k-lost')).toEqual({ orders: 1, records: 1 });
  });

  it("the write's own constraint fails: tried once through the claim, rejected, nothing left", async () => {
    await w().pool.query(`INSERT INTO ${w().orders} (id, key) VALUES (7, 'taken')`);
    const { place, seen } = placeInOneStatement({ write: (key) => orderWrite(key, 7) });
    await expect(place('k-dup', 10)).rejects.toMatchObject({ code: '23505' });
    expect(seen).toMatchObject({ asks: 2, statements: 1, transactions: 1 });
    expect(await w().counts('k-dup')).toEqual({ orders: 0, records: 0 });
  });

  it('a statement that names an expression idempotency_record is refused before anything is written', async () => {
    const { place } = placeInOneStatement({
      write: (key) => ({
        value: { id: 1, key },
        statement: { ctes: [`idempotency_record AS (SELECT 1)`], values: [] },
      }),
    });
    await expect(place('k-named', 10)).rejects.toThrow(/may not be named idempotency_record/);
    expect(await w().counts('k-named')).toEqual({ orders: 0, records: 0 });
  });

  it('enabled false: the write runs once on the pool, unprotected, without a record or a transaction', async () => {
    const { place, settings, seen } = placeInOneStatement();
    settings.current = { enabled: false };
    await expect(place('k-off', 10)).resolves.toMatchObject({ outcome: 'unprotected', fencingToken: 0 });
    expect(seen).toMatchObject({ asks: 1, statements: 1, transactions: 0 });
    expect(await w().counts('k-off')).toEqual({ orders: 1, records: 0 });
  });

  it('refuses an executor without query when the function is made', () => {
    expect(() =>
      makeIdempotentInOneStatement(w().coordinator, async () => orderWrite('k'), {
        operation: 'orders.place',
        key: () => 'k',
        executor: {} as unknown as pg.Pool,
        runInTransaction: (work) => withTransaction(w().pool, work),
      }),
    ).toThrow(/executor must be a pool/);
  });
});
