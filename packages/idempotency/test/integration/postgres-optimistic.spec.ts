import { types } from 'node:util';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { waitFor, withTransaction } from '@retry-safe/testing';
import { IdempotencyErrorCode, type CoordinatedResult, type TransactionRunner } from '../../src/index.js';
import { ordersWorld, type Order, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';

// The optimistic transactional path: the action first, then the completed record in one statement; a key with a
// row rolls that transaction back and goes through the claim.
const suite = suitePostgres();
let w: OrdersWorld;
beforeEach(async () => {
  w = await ordersWorld(suite.pool);
});

/** One optimistic call placing the order for `key`, in transactions on the pool. */
function placeOptimistically(key: string, fingerprint?: string): Promise<CoordinatedResult<Order>> {
  return w.coordinator.coordinateOptimisticallyWithOutcome<Order, pg.PoolClient>(
    (work) => withTransaction(w.pool, work),
    w.request(key, fingerprint),
    ({ transaction }) => w.placeOrder(transaction, key),
  );
}

async function recordOf(key: string): Promise<{ state: string; fencing_token: string; payload: string }> {
  const { rows } = await w.pool.query(`SELECT state, fencing_token, payload FROM ${w.table} WHERE key = $1`, [
    key,
  ]);
  return rows[0];
}

describe('optimistic transactional mode', () => {
  it('a fresh key: the order and the completed record in one transaction, no claim; a repeat replays the same bytes', async () => {
    const first = await placeOptimistically('k-fresh');
    expect(first).toEqual({
      value: { id: expect.any(Number), key: 'k-fresh' },
      outcome: 'executed',
      fencingToken: 1,
    });
    expect(await recordOf('k-fresh')).toEqual({
      state: 'c',
      fencing_token: '1',
      payload: JSON.stringify(first.value),
    });

    const again = await placeOptimistically('k-fresh');
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    // The repeat ran the action once more, in the transaction that was rolled back: still one order.
    expect(w.executions).toBe(2);
    expect(await w.counts('k-fresh')).toEqual({ orders: 1, records: 1 });
    expect(w.events.map((e) => e.type)).toEqual(['miss', 'hit']);
  });

  it('a record of the claim path is replayed, and a fresh optimistic record by the claim path', async () => {
    const claimed = await w.placeOnce('k-mixed');
    await expect(placeOptimistically('k-mixed')).resolves.toEqual({ ...claimed, outcome: 'replayed' });
    const optimistic = await placeOptimistically('k-mixed-2');
    await expect(w.placeOnce('k-mixed-2')).resolves.toEqual({ ...optimistic, outcome: 'replayed' });
    expect(await w.counts('k-mixed')).toEqual({ orders: 1, records: 1 });
    expect(await w.counts('k-mixed-2')).toEqual({ orders: 1, records: 1 });
  });

  it('refuses a key reused with another fingerprint, leaving no second order', async () => {
    await placeOptimistically('k-reuse');
    await expect(placeOptimistically('k-reuse', 'fp-other')).rejects.toMatchObject({
      code: IdempotencyErrorCode.KeyReuse,
      storedFingerprint: 'fp-order',
      requestFingerprint: 'fp-other',
    });
    expect(await w.counts('k-reuse')).toEqual({ orders: 1, records: 1 });
  });

  it('a released record is taken over by the claim path (its fencing token grows)', async () => {
    const failed = await w.coordinator
      .coordinateOptimisticallyWithOutcome<Order, pg.PoolClient>(
        (work) => withTransaction(w.pool, work),
        w.request('k-released'),
        async () => {
          throw new Error('out of stock');
        },
      )
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ message: 'out of stock' });
    expect(await w.counts('k-released')).toEqual({ orders: 0, records: 0 });
    // A claim-path failure committed anyway leaves a released row: the optimistic insert meets it.
    await withTransaction(w.pool, (client) =>
      w.coordinator
        .coordinateInTransaction(client, w.request('k-released'), async () => {
          throw new Error('out of stock');
        })
        .catch(() => undefined),
    );
    expect((await recordOf('k-released')).state).toBe('r');

    await expect(placeOptimistically('k-released')).resolves.toMatchObject({
      outcome: 'executed',
      fencingToken: 2,
    });
    expect(await w.counts('k-released')).toEqual({ orders: 1, records: 1 });
  });

  it('many concurrent calls of one key: one order, every caller the same value', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => placeOptimistically('k-race')));
    expect(results.filter((r) => r.outcome === 'executed')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'replayed')).toHaveLength(7);
    expect(new Set(results.map((r) => JSON.stringify(r.value))).size).toBe(1);
    expect(await w.counts('k-race')).toEqual({ orders: 1, records: 1 });
  });

  describe('a concurrent duplicate waits on the key while the first transaction is open', () => {
    async function firstHoldsTheKey(key: string) {
      const client = await w.pool.connect();
      await client.query('BEGIN');
      let value: Order | undefined;
      // The first call's transaction, left open after its record insert (the runner does not commit yet).
      const held = new Promise<void>((resolve) => {
        void w.coordinator.coordinateOptimisticallyWithOutcome<Order, pg.PoolClient>(
          async (work) => {
            const result = await work(client);
            value = (result as CoordinatedResult<Order>).value;
            resolve();
            return result;
          },
          w.request(key),
          ({ transaction }) => w.placeOrder(transaction, key),
        );
      });
      await held;
      let settled = false;
      const duplicate = placeOptimistically(key).finally(() => (settled = true));
      await waitFor('the duplicate to wait on a lock', async () => {
        const { rows } = await w.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%__insert_completed%'",
        );
        if (rows.length === 0) throw new Error('not waiting yet');
      });
      expect(settled).toBe(false);
      return { client, value: value!, duplicate };
    }

    it('then replays the committed result', async () => {
      const { client, value, duplicate } = await firstHoldsTheKey('k-wait-commit');
      await client.query('COMMIT');
      client.release();
      await expect(duplicate).resolves.toEqual({ value, outcome: 'replayed', fencingToken: 1 });
      expect(await w.counts('k-wait-commit')).toEqual({ orders: 1, records: 1 });
    });

    it('or places the order once the first rolls back', async () => {
      const { client, value, duplicate } = await firstHoldsTheKey('k-wait-rollback');
      await client.query('ROLLBACK');
      client.release();
      const placed = await duplicate;
      expect(placed).toMatchObject({ outcome: 'executed', fencingToken: 1 });
      expect(placed.value.id).not.toBe(value.id);
      expect(await w.counts('k-wait-rollback')).toEqual({ orders: 1, records: 1 });
    });
  });

  it('a backend terminated after the record insert, before COMMIT, leaves neither; the retry places it once', async () => {
    const owner = suite.server.client({ application_name: 'optimistic-owner' });
    owner.on('error', () => undefined);
    await owner.connect();
    const pid = (await owner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const outcome = await w.coordinator
      .coordinateOptimisticallyWithOutcome<Order, pg.Client>(
        async (work) => {
          await owner.query('BEGIN');
          const result = await work(owner);
          await w.pool.query('SELECT pg_terminate_backend($1)', [pid]);
          await owner.query('COMMIT');
          return result;
        },
        w.request('k-crash'),
        ({ transaction }) => w.placeOrder(transaction, 'k-crash'),
      )
      .catch((e: unknown) => e);
    // The first COMMIT fails with 57P01 or a lost socket; after 57P01 the claim's transaction meets the dead
    // connection too, and its socket error is made outside Jest's realm: checked as a native error.
    expect(types.isNativeError(outcome)).toBe(true);
    await owner.end().catch(() => undefined);
    await waitFor('the terminated session to end', async () => {
      const { rows } = await w.pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'optimistic-owner'",
      );
      if (rows.length > 0) throw new Error('session still there');
    });
    expect(await w.counts('k-crash')).toEqual({ orders: 0, records: 0 });

    const retry = await placeOptimistically('k-crash');
    expect(retry.outcome).toBe('executed');
    await expect(placeOptimistically('k-crash')).resolves.toEqual({ ...retry, outcome: 'replayed' });
    expect(await w.counts('k-crash')).toEqual({ orders: 1, records: 1 });
  });
});

describe('a first transaction that failed in the database goes through the claim once more', () => {
  /**
   * A runner whose first transaction runs on its own connection and ends with `end` (a real error of the server:
   * the session terminates itself); later transactions run on the pool.
   */
  function runnerFailingFirst(end: (client: pg.Client) => Promise<void>) {
    let transactions = 0;
    const runner = async <R>(work: (transaction: pg.ClientBase) => Promise<R>): Promise<R> => {
      transactions += 1;
      if (transactions > 1) return withTransaction(w.pool, work);
      const client = suite.server.client();
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await end(client);
        return result;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    return { runner, transactions: () => transactions };
  }

  const terminateSelf = async (client: pg.Client): Promise<void> => {
    await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
  };

  function place(key: string, runner: TransactionRunner<pg.ClientBase>): Promise<CoordinatedResult<Order>> {
    return w.coordinator.coordinateOptimisticallyWithOutcome<Order, pg.ClientBase>(
      runner,
      w.request(key),
      ({ transaction }) => w.placeOrder(transaction, key),
    );
  }

  it('a COMMIT that landed and lost its answer: the claim replays it, one order', async () => {
    const { runner, transactions } = runnerFailingFirst(async (client) => {
      await client.query('COMMIT');
      // The answer is lost after the commit: the session ends with a SQLSTATE error (57P01).
      await terminateSelf(client);
    });
    const result = await place('k-lost-commit', runner);
    expect(result).toEqual({
      value: { id: expect.any(Number), key: 'k-lost-commit' },
      outcome: 'replayed',
      fencingToken: 1,
    });
    expect(transactions()).toBe(2);
    // The second transaction's claim found the committed record: the action did not run again.
    expect(w.executions).toBe(1);
    expect(await w.counts('k-lost-commit')).toEqual({ orders: 1, records: 1 });
  });

  it('a transaction terminated before its COMMIT: the claim runs the action, one order', async () => {
    const { runner, transactions } = runnerFailingFirst(terminateSelf);
    const result = await place('k-lost-transaction', runner);
    expect(result).toMatchObject({ outcome: 'executed', fencingToken: 1 });
    expect(transactions()).toBe(2);
    expect(w.executions).toBe(2);
    expect(await w.counts('k-lost-transaction')).toEqual({ orders: 1, records: 1 });
    await expect(placeOptimistically('k-lost-transaction')).resolves.toEqual({
      ...result,
      outcome: 'replayed',
    });
  });

  it("the action's own error is the answer: no second transaction", async () => {
    let transactions = 0;
    const failed = await w.coordinator
      .coordinateOptimisticallyWithOutcome<Order, pg.PoolClient>(
        (work) => {
          transactions += 1;
          return withTransaction(w.pool, work);
        },
        w.request('k-own-error'),
        async () => {
          throw new Error('out of stock');
        },
      )
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ message: 'out of stock' });
    expect(transactions).toBe(1);
  });
});

describe('insertCompletedSql: the caller writes its row and the completed record in one statement', () => {
  /** The caller's statement: the record through the store's helper, the order only from its row. */
  async function placeInOneStatement(key: string, payload = '{"id":0}'): Promise<number | undefined> {
    const call = w.store.insertCompletedSql(2, {
      operation: 'orders.place',
      key,
      owner: 'one-statement',
      fingerprint: 'fp-order',
      payload,
      ttlMs: 60_000,
    });
    const { rows } = await w.pool.query<{ token: string }>(
      `WITH rec AS (${call.sql})
        INSERT INTO ${w.orders} (key) SELECT $1 FROM rec RETURNING (SELECT fencing_token FROM rec) AS token`,
      [key, ...call.values],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].token);
  }

  it('writes both for a fresh key, neither for a key with a row; the claim path replays what it wrote', async () => {
    await expect(placeInOneStatement('k-one')).resolves.toBe(1);
    await expect(placeInOneStatement('k-one')).resolves.toBeUndefined();
    expect(await w.counts('k-one')).toEqual({ orders: 1, records: 1 });
    await expect(w.placeOnce('k-one')).resolves.toEqual({
      value: { id: 0 },
      outcome: 'replayed',
      fencingToken: 1,
    });
    const claimed = await w.placeOnce('k-claimed');
    await expect(placeInOneStatement('k-claimed')).resolves.toBeUndefined();
    expect(claimed.outcome).toBe('executed');
    expect(await w.counts('k-claimed')).toEqual({ orders: 1, records: 1 });
  });

  it('writes one order and one record for 8 concurrent statements of one key', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => placeInOneStatement('k-race')));
    expect(tokens.filter((t) => t !== undefined)).toEqual([1]);
    expect(await w.counts('k-race')).toEqual({ orders: 1, records: 1 });
  });
});
