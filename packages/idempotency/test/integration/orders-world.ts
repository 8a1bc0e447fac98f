import { randomBytes } from 'node:crypto';
import { beforeEach } from '@jest/globals';
import type pg from 'pg';
import { withTransaction } from '@retry-safe/testing';
import {
  IdempotencyCoordinator,
  jsonCodec,
  type CoordinateRequest,
  type IdempotencyEvent,
} from '../../src/index.js';
import { PostgresIdempotencyStore } from '../../src/postgres/index.js';
import { freshTable, suitePostgres } from './postgres-support.js';

export interface Order {
  id: number;
  key: string;
}

/**
 * A per-test world for transactional mode: a fresh records table, a fresh `orders` table for the business write,
 * and helpers that count real effects (order rows, record rows, action executions).
 */
export async function ordersWorld(pool: pg.Pool) {
  const table = freshTable();
  const orders = `orders_${randomBytes(6).toString('hex')}`;
  const store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  await store.migrate();
  await pool.query(`CREATE TABLE ${orders} (id serial PRIMARY KEY, key text NOT NULL)`);
  const events: IdempotencyEvent[] = [];
  const coordinator = new IdempotencyCoordinator(store, { onEvent: (e) => events.push(e) });
  const world = {
    pool,
    table,
    orders,
    store,
    events,
    coordinator,
    /** How often an action of this world ran (its effect may have been rolled back). */
    executions: 0,
    request: (key: string, fingerprint = 'fp-order'): CoordinateRequest<Order> => ({
      operation: 'orders.place',
      key,
      ttlMs: 60_000,
      codec: jsonCodec<Order>(),
      fingerprint,
    }),
    /** The business write the record must commit with: one order row. */
    placeOrder: async (transaction: pg.ClientBase, key: string): Promise<Order> => {
      world.executions += 1;
      const { rows } = await transaction.query<Order>(
        `INSERT INTO ${orders} (key) VALUES ($1) RETURNING id, key`,
        [key],
      );
      return rows[0]!;
    },
    /** Committed order rows and record rows for `key`. */
    counts: async (key: string): Promise<{ orders: number; records: number }> => {
      const o = await pool.query(`SELECT count(*)::int AS n FROM ${orders} WHERE key = $1`, [key]);
      const r = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE key = $1`, [key]);
      return { orders: o.rows[0].n, records: r.rows[0].n };
    },
    /** One transaction that places the order for `key` through the coordinator, and commits. */
    placeOnce: (key: string, fingerprint?: string) =>
      withTransaction(pool, (client) =>
        coordinator.coordinateInTransactionWithOutcome(
          client,
          world.request(key, fingerprint),
          ({ transaction }) => world.placeOrder(transaction, key),
        ),
      ),
  };
  return world;
}

export type OrdersWorld = Awaited<ReturnType<typeof ordersWorld>>;

/** A fresh {@link ordersWorld} before each test of the file, on the suite's PostgreSQL: read it through the getter. */
export function useOrdersWorld(): () => OrdersWorld {
  const suite = suitePostgres();
  let world: OrdersWorld | undefined;
  beforeEach(async () => {
    world = await ordersWorld(suite.pool);
  });
  return () => world!;
}
