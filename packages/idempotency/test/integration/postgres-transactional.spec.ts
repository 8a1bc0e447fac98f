import { describe, expect, it, beforeEach } from '@jest/globals';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { sleep, waitFor, withTransaction } from '@retry-safe/testing';
import { IdempotencyErrorCode, jsonCodec } from '../../src/index.js';
import { kyselyTransaction } from '../../src/postgres/index.js';
import { ordersWorld, type Order, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';

// Transactional mode on PostgreSQL: the record commits or rolls back with the caller's own writes.
const suite = suitePostgres();
let w: OrdersWorld;
beforeEach(async () => {
  w = await ordersWorld(suite.pool);
});

describe('transactional mode', () => {
  it('commits the record with the order; a repeat replays it without running or writing anything', async () => {
    const first = await w.placeOnce('k-commit');
    const again = await w.placeOnce('k-commit');

    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-commit' } });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-commit')).toEqual({ orders: 1, records: 1 });
    expect(w.events.map((e) => e.type)).toEqual(['miss', 'hit']);
  });

  it('ROLLBACK leaves neither the record nor the order, and the retry runs', async () => {
    const client = await w.pool.connect();
    await client.query('BEGIN');
    await w.coordinator.coordinateInTransaction(client, w.request('k-rollback'), ({ transaction }) =>
      w.placeOrder(transaction, 'k-rollback'),
    );
    await client.query('ROLLBACK');
    client.release();
    expect(await w.counts('k-rollback')).toEqual({ orders: 0, records: 0 });

    await expect(w.placeOnce('k-rollback')).resolves.toMatchObject({ outcome: 'executed' });
    expect(w.executions).toBe(2);
    expect(await w.counts('k-rollback')).toEqual({ orders: 1, records: 1 });
  });

  it('an action that outlives the lease and the record completes and commits: the transaction is the lease', async () => {
    // The claim's row stays locked by this transaction until it ends, so nobody else can take the key however long
    // the action runs; only a commit or rollback in between would end that (see the tx_complete function).
    const slow = { ...w.request('k-slow'), ttlMs: 1_000, leaseMs: 10 };
    const placed = await withTransaction(w.pool, (client) =>
      w.coordinator.coordinateInTransaction(client, slow, async ({ transaction }) => {
        const order = await w.placeOrder(transaction, 'k-slow');
        await sleep(1_200); // past leaseMs and past retainMs (max(ttlMs, leaseMs))
        return order;
      }),
    );

    expect(placed).toMatchObject({ key: 'k-slow' });
    expect(await w.counts('k-slow')).toEqual({ orders: 1, records: 1 });
    await expect(w.placeOnce('k-slow')).resolves.toMatchObject({ outcome: 'replayed', value: placed });
    expect(w.executions).toBe(1);
  });

  it('a failed action leaves the key free even when the caller commits anyway', async () => {
    const failed = await withTransaction(w.pool, (client) =>
      w.coordinator
        .coordinateInTransaction(client, w.request('k-fail'), async () => {
          w.executions += 1;
          throw new Error('out of stock');
        })
        .catch((e: unknown) => e),
    );
    expect(failed).toMatchObject({ message: 'out of stock' });

    await expect(w.placeOnce('k-fail')).resolves.toMatchObject({ outcome: 'executed' });
    expect(w.executions).toBe(2);
    expect(await w.counts('k-fail')).toEqual({ orders: 1, records: 1 });
  });

  it('a value the codec cannot encode: IDEMPOTENCY_UNENCODABLE_RESULT; committed anyway, the action never runs again', async () => {
    const unencodable = { ...w.request('k-unencodable'), codec: jsonCodec<Order & { n?: bigint }>() };
    const place = () =>
      withTransaction(w.pool, (client) =>
        w.coordinator
          .coordinateInTransaction(client, unencodable, async ({ transaction }) => ({
            ...(await w.placeOrder(transaction, 'k-unencodable')),
            n: 1n,
          }))
          .catch((e: unknown) => e),
      );

    const errors = [await place(), await place()];
    expect(errors).toMatchObject([
      { code: IdempotencyErrorCode.UnencodableResult },
      { code: IdempotencyErrorCode.UnencodableResult },
    ]);
    expect(w.executions).toBe(1);
    expect(await w.counts('k-unencodable')).toEqual({ orders: 1, records: 1 });
  });

  it('refuses a key reused with another fingerprint before the action runs', async () => {
    await w.placeOnce('k-reuse');
    await expect(w.placeOnce('k-reuse', 'fp-other')).rejects.toMatchObject({
      code: IdempotencyErrorCode.KeyReuse,
      storedFingerprint: 'fp-order',
      requestFingerprint: 'fp-other',
    });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-reuse')).toEqual({ orders: 1, records: 1 });
  });

  describe('a concurrent duplicate in another transaction waits on the unique index', () => {
    async function firstHoldsTheKey(key: string) {
      const client = await w.pool.connect();
      await client.query('BEGIN');
      const value = await w.coordinator.coordinateInTransaction(client, w.request(key), ({ transaction }) =>
        w.placeOrder(transaction, key),
      );
      let settled = false;
      const duplicate = w.placeOnce(key).finally(() => (settled = true));
      // The duplicate's claim is blocked on the first transaction's row: it has not come back.
      await waitFor('the duplicate to wait on a lock', async () => {
        const { rows } = await w.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%__claim%'",
        );
        if (rows.length === 0) throw new Error('not waiting yet');
      });
      expect(settled).toBe(false);
      return { client, value, duplicate };
    }

    it('then replays the committed result', async () => {
      const { client, value, duplicate } = await firstHoldsTheKey('k-wait-commit');
      await client.query('COMMIT');
      client.release();

      await expect(duplicate).resolves.toEqual({ value, outcome: 'replayed', fencingToken: 1 });
      expect(w.executions).toBe(1);
      expect(await w.counts('k-wait-commit')).toEqual({ orders: 1, records: 1 });
    });

    it('or runs the action once the first rolls back', async () => {
      const { client, duplicate } = await firstHoldsTheKey('k-wait-rollback');
      await client.query('ROLLBACK');
      client.release();

      await expect(duplicate).resolves.toMatchObject({ outcome: 'executed' });
      expect(w.executions).toBe(2);
      expect(await w.counts('k-wait-rollback')).toEqual({ orders: 1, records: 1 });
    });
  });

  it('reports a deadlock with IDEMPOTENCY_TRANSACTION_CONFLICT, and the other transaction commits', async () => {
    const [a, b] = [await w.pool.connect(), await w.pool.connect()];
    await a.query('BEGIN');
    await b.query('BEGIN');
    const claim = (client: pg.PoolClient, key: string) =>
      w.coordinator.coordinateInTransaction(client, w.request(key), ({ transaction }) =>
        w.placeOrder(transaction, key),
      );
    await claim(a, 'k-dl-1');
    await claim(b, 'k-dl-2');
    // Each now waits for the other's key: PostgreSQL aborts one of them after deadlock_timeout.
    const results = await Promise.allSettled([claim(a, 'k-dl-2'), claim(b, 'k-dl-1')]);
    const rejected = results.filter((r) => r.status === 'rejected');

    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
      code: IdempotencyErrorCode.TransactionConflict,
      sqlState: '40P01',
    });
    const winner = results[0]!.status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    await loser.query('ROLLBACK');
    await winner.query('COMMIT');
    a.release();
    b.release();
    expect((await w.counts('k-dl-1')).records + (await w.counts('k-dl-2')).records).toBe(2);
  });

  it('reports a serialization failure (REPEATABLE READ) with IDEMPOTENCY_TRANSACTION_CONFLICT', async () => {
    const late = await w.pool.connect();
    await late.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await late.query('SELECT 1'); // takes the snapshot
    await w.placeOnce('k-serial'); // committed after that snapshot

    const error = await w.coordinator
      .coordinateInTransaction(late, w.request('k-serial'), ({ transaction }) =>
        w.placeOrder(transaction, 'k-serial'),
      )
      .catch((e: unknown) => e);
    await late.query('ROLLBACK');
    late.release();

    expect(error).toMatchObject({ code: IdempotencyErrorCode.TransactionConflict, sqlState: '40001' });
    expect(w.executions).toBe(1);
  });

  it('works through a Kysely transaction with the adapter', async () => {
    const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool: w.pool }) });
    const place = () =>
      db.transaction().execute((trx) =>
        w.coordinator.coordinateInTransactionWithOutcome(
          kyselyTransaction(trx),
          w.request('k-kysely'),
          async () => {
            w.executions += 1;
            const { rows } = await trx.executeQuery<Order>(
              CompiledQuery.raw(`INSERT INTO ${w.orders} (key) VALUES ($1) RETURNING id, key`, ['k-kysely']),
            );
            return rows[0]!;
          },
        ),
      );

    const first = await place();
    const again = await place();
    expect(first).toMatchObject({ outcome: 'executed', value: { key: 'k-kysely' } });
    expect(again).toEqual({ ...first, outcome: 'replayed' });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-kysely')).toEqual({ orders: 1, records: 1 });
  });
});
