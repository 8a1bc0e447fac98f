import {
  IdempotencyCoordinator,
  fingerprintOf,
  jsonCodec,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';
import { recordStatements, startPrivatePostgres, type PostgresHandle } from '@retry-safe/testing';
import type pg from 'pg';

/** The business row both modes write: an order of about the size of the Redis benchmarks' charge. */
export interface Order {
  id: string;
  orderId: string;
  amount: number;
  currency: string;
  status: string;
  customerId: string;
}

export const order: Omit<Order, 'id'> = {
  orderId: '0d6b1f4e-8c2a-4e7b-9f3d-5a1c7e2b8d40',
  amount: 4999,
  currency: 'EUR',
  status: 'placed',
  customerId: 'cus_7f3e2a91c4b8',
};

/** A private PostgreSQL, a pool, our store on a migrated table, and an `orders` table for the business write. */
export interface PostgresBench {
  readonly server: PostgresHandle;
  readonly pool: pg.Pool;
  readonly store: PostgresIdempotencyStore;
  readonly coordinator: IdempotencyCoordinator;
  /** Statements sent by the pool's clients since the last `statements.length = 0` (one round trip each). */
  readonly statements: string[];
  request(key: string): CoordinateRequest<Order>;
  /** The business write: INSERT ... RETURNING on `client`. */
  insertOrder(client: pg.ClientBase, key: string): Promise<Order>;
  close(): Promise<void>;
}

/** A private PostgreSQL for a benchmark; `durable` (env BENCH_DURABLE=1) turns fsync on, as in production. */
export async function startPostgresBench(poolSize = 8): Promise<PostgresBench> {
  const server = await startPrivatePostgres({ durable: process.env['BENCH_DURABLE'] === '1' });
  const pool = server.pool({ max: poolSize });
  const statements = recordStatements(pool);
  const store = new PostgresIdempotencyStore(pool, { table: 'idempotency_records', sweepIntervalMs: 0 });
  await store.migrate();
  await pool.query(
    `CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL, order_id uuid NOT NULL, amount int NOT NULL,
       currency text NOT NULL, status text NOT NULL, customer_id text NOT NULL)`,
  );
  const coordinator = new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 });
  const fingerprint = fingerprintOf({
    orderId: order.orderId,
    amount: order.amount,
    currency: order.currency,
  });
  const codec = jsonCodec<Order>();
  return {
    server,
    pool,
    store,
    coordinator,
    statements,
    request: (key) => ({ operation: 'orders.place.t1', key, ttlMs: 3_600_000, codec, fingerprint }),
    insertOrder: async (client, key) => {
      const { rows } = await client.query<Order>(
        `INSERT INTO orders (key, order_id, amount, currency, status, customer_id) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, order_id AS "orderId", amount, currency, status, customer_id AS "customerId"`,
        [key, order.orderId, order.amount, order.currency, order.status, order.customerId],
      );
      return rows[0]!;
    },
    close: async () => {
      await store.close();
      await pool.end();
      await server.close();
    },
  };
}
