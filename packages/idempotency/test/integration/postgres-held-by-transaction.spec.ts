import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { IdempotencyCoordinator, IdempotencyErrorCode, type CoordinatorOptions } from '../../src/index.js';
import { ordersWorld, type Order, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';
import { eventually, sleep } from './support.js';

// Issue 25, item 4: a key claimed by another open transaction is in progress, in every mode: never "store
// unavailable", never run beside its owner. Two real transactions: the owner's stays open until the test ends it.
const suite = suitePostgres();
let w: OrdersWorld;
beforeEach(async () => {
  w = await ordersWorld(suite.pool);
});
// Wait mode LISTENs on a connection of the pool: the store gives it back on close.
afterEach(() => w.store.close());

/** Opens a transaction that claims `key` and places its order, and keeps it open until `end` is called. */
async function openOwner(
  key: string,
): Promise<{ order: Order; end(how: 'COMMIT' | 'ROLLBACK'): Promise<void> }> {
  const client: pg.PoolClient = await w.pool.connect();
  await client.query('BEGIN');
  const order = await w.coordinator.coordinateInTransaction(client, w.request(key), ({ transaction }) =>
    w.placeOrder(transaction, key),
  );
  return {
    order,
    end: async (how) => {
      await client.query(how);
      client.release();
    },
  };
}

const standalone = (options: CoordinatorOptions) => new IdempotencyCoordinator(w.store, options);

/** A standalone call of the same key: its action would be a second order, so it counts as one. */
const otherCall = (options: CoordinatorOptions, key: string) =>
  standalone(options).coordinateWithOutcome(w.request(key), async () => {
    w.executions += 1;
    return { id: -1, key };
  });

describe('a key held by another open transaction', () => {
  it.each([
    ['raise, fail-closed', { inFlight: 'raise', onStoreUnavailable: 'fail-closed' }],
    ['raise, fail-open', { inFlight: 'raise', onStoreUnavailable: 'fail-open' }],
    [
      'wait, fail-open, short wait',
      { inFlight: 'wait', onStoreUnavailable: 'fail-open', waitTimeoutMs: 300 },
    ],
  ] as const)('%s: IDEMPOTENCY_IN_PROGRESS, the action does not run', async (_, options) => {
    const owner = await openOwner('k-held');
    try {
      await expect(otherCall(options, 'k-held')).rejects.toMatchObject({
        code: IdempotencyErrorCode.InProgress,
      });
    } finally {
      await owner.end('COMMIT');
    }
    expect(w.executions).toBe(1);
    expect(await w.counts('k-held')).toEqual({ orders: 1, records: 1 });
  });

  it("wait mode: the waiter gets the owner's result as soon as it commits", async () => {
    const owner = await openOwner('k-commit');
    const waiting = otherCall({ inFlight: 'wait', waitTimeoutMs: 10_000 }, 'k-commit');
    // Waiting well past one claim's lock wait (a standalone claim is bounded by commandTimeoutMs).
    await sleep(1_500);
    const committedAt = Date.now();
    await owner.end('COMMIT');

    await expect(waiting).resolves.toMatchObject({ outcome: 'replayed', value: owner.order });
    expect(Date.now() - committedAt).toBeLessThan(500);
    expect(w.executions).toBe(1);
  });

  it('wait mode: the waiter runs the action itself as soon as the owner rolls back', async () => {
    const owner = await openOwner('k-rollback');
    let ranAt = 0;
    const waiting = standalone({ inFlight: 'wait', waitTimeoutMs: 10_000 }).coordinateWithOutcome(
      w.request('k-rollback'),
      async () => {
        ranAt = Date.now();
        w.executions += 1;
        return { id: -1, key: 'k-rollback' };
      },
    );
    await sleep(1_500);
    const rolledBackAt = Date.now();
    await owner.end('ROLLBACK');

    await expect(waiting).resolves.toMatchObject({ outcome: 'executed', value: { id: -1 } });
    expect(ranAt - rolledBackAt).toBeLessThan(500);
    expect(w.executions).toBe(2);
  });

  it('another transaction claiming the key waits for the owner and replays its result', async () => {
    const owner = await openOwner('k-two-tx');
    const second = w.placeOnce('k-two-tx');
    await eventually('the second transaction waits on the key', async () => {
      const { rows } = await suite.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]!.n > 0;
    });
    await owner.end('COMMIT');
    await expect(second).resolves.toMatchObject({ outcome: 'replayed', value: owner.order });
    expect(w.executions).toBe(1);
    expect(await w.counts('k-two-tx')).toEqual({ orders: 1, records: 1 });
  });
});
