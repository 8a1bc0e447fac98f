import { describe, expect, it } from '@jest/globals';
import { withTransaction } from '@retry-safe/testing';
import { IdempotencyErrorCode, type Codec } from '../../src/index.js';
import { ordersWorld } from './orders-world.js';
import { postgresWorld, suitePostgres } from './postgres-support.js';

// Values PostgreSQL cannot hold, and the errors of a caller's aborted transaction: each ends once, coded, and the
// action never runs a second time because of it.
const suite = suitePostgres();

/** A codec whose output is the value itself: `a\u0000b` reaches the store as it is (JSON would escape it). */
const rawCodec: Codec<string> = { encode: (value) => value, decode: (stored) => stored };

describe('a result PostgreSQL text cannot hold (U+0000)', () => {
  it('standalone: IDEMPOTENCY_UNENCODABLE_RESULT on the first call and every repeat; the action ran once', async () => {
    const w = await postgresWorld(suite.pool);
    const coordinator = w.coordinator();
    let executions = 0;
    const call = () =>
      coordinator
        .coordinate({ ...w.request('k-nul'), codec: rawCodec }, async () => {
          executions += 1;
          return 'a\u0000b';
        })
        .catch((e: unknown) => e);

    const errors = [await call(), await call(), await call()];
    expect(errors).toMatchObject([
      { code: IdempotencyErrorCode.UnencodableResult },
      { code: IdempotencyErrorCode.UnencodableResult },
      { code: IdempotencyErrorCode.UnencodableResult },
    ]);
    expect(executions).toBe(1);
    const { rows } = await suite.pool.query(`SELECT state, payload FROM ${w.table} WHERE key = 'k-nul'`);
    expect(rows).toEqual([{ state: 'e', payload: null }]);
    await w.close();
  });

  it('transactional: the same, and the order the caller committed is the only one', async () => {
    const w = await ordersWorld(suite.pool);
    const place = () =>
      withTransaction(w.pool, (client) =>
        w.coordinator
          .coordinateInTransaction(
            client,
            { ...w.request('k-nul'), codec: rawCodec },
            async ({ transaction }) => {
              const order = await w.placeOrder(transaction, 'k-nul');
              return `order ${order.id}\u0000`;
            },
          )
          .catch((e: unknown) => e),
      );

    const errors = [await place(), await place()];
    expect(errors).toMatchObject([
      { code: IdempotencyErrorCode.UnencodableResult },
      { code: IdempotencyErrorCode.UnencodableResult },
    ]);
    expect(w.executions).toBe(1);
    expect(await w.counts('k-nul')).toEqual({ orders: 1, records: 1 });
    await w.store.close();
  });
});

describe("the caller's transaction aborted under the store's statement: roll back and retry", () => {
  const conflictOf = async (setup: string, holdKey: boolean) => {
    const w = await ordersWorld(suite.pool);
    const holder = await suite.pool.connect();
    if (holdKey) {
      // An open transactional claim of the key: the caller's claim waits on its row.
      await holder.query('BEGIN');
      await w.coordinator.coordinateInTransaction(holder, w.request('k-held'), ({ transaction }) =>
        w.placeOrder(transaction, 'k-held'),
      );
    }
    try {
      return await withTransaction(suite.pool, async (client) => {
        await client.query(setup).catch(() => undefined);
        return w.coordinator
          .coordinateInTransaction(client, w.request('k-held'), ({ transaction }) =>
            w.placeOrder(transaction, 'k-held'),
          )
          .catch((e: unknown) => e);
      }).then((error) => ({ error, executions: w.executions }));
    } finally {
      if (holdKey) await holder.query('ROLLBACK');
      holder.release();
      await w.store.close();
    }
  };

  it.each([
    ['55P03, its own lock_timeout', "SET LOCAL lock_timeout = '100ms'", true, '55P03'],
    ['57014, its own statement_timeout', "SET LOCAL statement_timeout = '100ms'", true, '57014'],
    ['25P02, already aborted before the call', 'SELECT 1/0', false, '25P02'],
  ])('%s: IDEMPOTENCY_TRANSACTION_CONFLICT, the action not run', async (_, setup, holdKey, sqlState) => {
    const { error, executions } = await conflictOf(setup, holdKey);
    expect(error).toMatchObject({ code: IdempotencyErrorCode.TransactionConflict, sqlState });
    // Only the holder's action ran.
    expect(executions).toBe(holdKey ? 1 : 0);
  });
});

it('a 55-character table name: every state change keeps a prepared statement of its own', async () => {
  const schema = `s_${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
  const table = `${schema}.t${'x'.repeat(39)}`;
  expect(table).toHaveLength(55);
  // One connection, so every statement is prepared on it.
  const pool = suite.server.pool({ max: 1 });
  await pool.query(`CREATE SCHEMA ${schema}`);
  const w = await postgresWorld(pool, { table });
  const claim = {
    operation: 'op',
    key: 'k',
    owner: 'o1',
    fingerprint: 'fp',
    leaseMs: 10_000,
    retainMs: 60_000,
  };
  await expect(w.store.claim(claim)).resolves.toMatchObject({ status: 'acquired' });
  await expect(w.store.renew({ ...claim })).resolves.toBe(true);
  await expect(w.store.release({ ...claim })).resolves.toBe(true);
  await expect(w.store.storeIfAbsent({ ...claim, key: 'k2', payload: '{}', ttlMs: 60_000 })).resolves.toBe(
    true,
  );
  await w.close();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
});

it('fingerprints with lone surrogates are refused (UTF-8 would make them one): INVALID_OPTIONS, nothing runs', async () => {
  const w = await postgresWorld(suite.pool);
  let executions = 0;
  const call = (fingerprint: string) =>
    w
      .coordinator()
      .coordinate(w.request('k-fp', { fingerprint }), async () => {
        executions += 1;
        return { id: 'c1', amount: 1, currency: 'EUR' };
      })
      .catch((e: unknown) => e);
  expect(await call('fp-\ud800')).toMatchObject({ code: IdempotencyErrorCode.InvalidOptions });
  expect(await call('fp-\udbff')).toMatchObject({ code: IdempotencyErrorCode.InvalidOptions });
  expect(executions).toBe(0);
  expect(await w.records()).toEqual([]);
  await w.close();
});
