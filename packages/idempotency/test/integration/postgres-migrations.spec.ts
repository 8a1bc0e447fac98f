import { expect, it } from '@jest/globals';
import type pg from 'pg';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { ordersWorld, type OrdersWorld } from './orders-world.js';
import { suitePostgres } from './postgres-support.js';
import { sleep } from './support.js';

// Issue 25, item 5: migrate() never blocks writers, and upgrades through versioned, exported steps.
const suite = suitePostgres();

/** A standalone claim of `key` on the world's table, as another request of the service would make it. */
const claimOther = (w: OrdersWorld, key: string) =>
  w.store.claim({
    operation: 'orders.place',
    key,
    owner: `owner-${key}`,
    fingerprint: 'fp-order',
    leaseMs: 10_000,
    retainMs: 60_000,
  });

/** BEGIN and a transactional claim of `key`, left open: the row (and the table's ROW EXCLUSIVE lock) held. */
async function openTransactionalClaim(w: OrdersWorld, key: string): Promise<pg.PoolClient> {
  const client = await w.pool.connect();
  await client.query('BEGIN');
  await w.coordinator.coordinateInTransaction(client, w.request(key), ({ transaction }) =>
    w.placeOrder(transaction, key),
  );
  return client;
}

/** `migrate()` of a new store on `table` (a booting replica), and how long it took, or 'still waiting'. */
async function bootMigrate(pool: pg.Pool, table: string, withinMs: number) {
  const store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  const started = Date.now();
  const migrating = store.migrate().then(() => Date.now() - started);
  const outcome = await Promise.race([migrating, sleep(withinMs).then(() => 'still waiting' as const)]);
  return { outcome, migrating: migrating.finally(() => store.close()) };
}

it('on a current table, returns at once beside an open transactional claim, and claims of other keys go on', async () => {
  const w = await ordersWorld(suite.pool);
  const held = await openTransactionalClaim(w, 'k-held');
  try {
    const boot = await bootMigrate(suite.pool, w.table, 500);
    const other = await claimOther(w, 'k-other');
    expect({ migrate: boot.outcome, other: other.status }).toEqual({
      migrate: expect.any(Number),
      other: 'acquired',
    });
    await held.query('COMMIT');
    await boot.migrating;
  } finally {
    await held.query('ROLLBACK').catch(() => undefined);
    held.release();
  }
  expect(await w.counts('k-held')).toEqual({ orders: 1, records: 1 });
});
