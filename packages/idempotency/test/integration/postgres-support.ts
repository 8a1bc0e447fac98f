import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type pg from 'pg';
import { startPostgres, type PostgresHandle, type StartPostgresOptions } from '@retry-safe/testing';
import { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from '../../src/postgres/index.js';
import { storeWorld, type BehaviourBackend, type StoreWorld } from './support.js';

/** A fresh table name, so tests are isolated by table and nothing shared is ever truncated. */
export const freshTable = (): string => `idem_${randomBytes(6).toString('hex')}`;

/**
 * A per-test world on PostgreSQL: its own table (and functions), migrated before the test (which also leaves an open
 * connection in the pool, so a paused server is met on a connection that is already up). With `direct`, the
 * stores use `pool` (e.g. through a proxy) while the migration and the test's own reads go straight to the server.
 */
export async function postgresWorld(
  pool: pg.Pool,
  options: PostgresIdempotencyStoreOptions = {},
  direct: pg.Pool = pool,
): Promise<StoreWorld<PostgresIdempotencyStore> & { table: string }> {
  const table = options.table ?? freshTable();
  const make = () => new PostgresIdempotencyStore(pool, { commandTimeoutMs: 1000, ...options, table });
  const store = make();
  if (direct === pool) await store.migrate();
  else await migrated(direct, table);
  const base = storeWorld(store, make, {
    records: async () =>
      (
        await direct.query<{ id: string }>(
          `SELECT operation || ':' || key AS id FROM ${table} WHERE expires_at > clock_timestamp() ORDER BY 1`,
        )
      ).rows.map((r) => r.id),
    removeRecord: async (operation, key) =>
      void (await direct.query(`DELETE FROM ${table} WHERE operation = $1 AND key = $2`, [operation, key])),
    remainingTtlMs: async (operation, key) => {
      const { rows } = await direct.query<{ ms: string }>(
        `SELECT floor(extract(epoch from expires_at - clock_timestamp()) * 1000) AS ms FROM ${table}
          WHERE operation = $1 AND key = $2`,
        [operation, key],
      );
      return rows[0] ? Number(rows[0].ms) : -2;
    },
  });
  return { ...base, table };
}

/** Migrates `table` on `pool` with a store of its own, closed again (no sweep). */
async function migrated(pool: pg.Pool, table: string): Promise<void> {
  const migrator = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  await migrator.migrate();
  await migrator.close();
}

/** The behaviour suite on PostgreSQL: a table per test, and rows this format cannot read. */
export function postgresBackend(pool: () => pg.Pool): BehaviourBackend {
  let table = '';
  const insert = (columns: Record<string, unknown>) => async (operation: string, key: string) => {
    const row = {
      operation,
      key,
      state: 'c',
      fencing_token: 1,
      owner: 'someone',
      fingerprint: 'fp-a',
      lease_until: null,
      expires_at: new Date(Date.now() + 60_000),
      version: 1,
      payload: '{}',
      ...columns,
    };
    const names = Object.keys(row);
    await pool().query(
      `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      Object.values(row),
    );
  };
  return {
    world: async () => {
      const w = await postgresWorld(pool());
      table = w.table;
      return w;
    },
    corruptions: [
      ['an unknown format version', insert({ version: 99 })],
      ['an unknown state', insert({ state: 'x' })],
      ['a completed record without a result', insert({ payload: null })],
      ['a pending record without a lease', insert({ state: 'p', lease_until: null })],
      ['a fencing token beyond 2^53', insert({ fencing_token: '9007199254740993' })],
      ['a negative fencing token', insert({ fencing_token: -1 })],
      ['a result the codec cannot decode', insert({ payload: '{not json' })],
    ],
  };
}

/** A PostgreSQL and one pool for the whole suite: started in `beforeAll`, closed in `afterAll`. */
export function suitePostgres(options: StartPostgresOptions = {}, poolSize = 20) {
  const suite = {} as { server: PostgresHandle; pool: pg.Pool };
  beforeAll(async () => {
    suite.server = await startPostgres(options);
    suite.pool = suite.server.pool({ max: poolSize });
  }, 30_000);
  afterAll(async () => {
    await suite.pool.end();
    await suite.server.close();
  });
  return suite;
}

/** A ledger table (`id`, `amount`) for a provider's writes, and a migrated store on a fresh records table. */
export async function ledgerAndStore(pool: pg.Pool, ledger: string): Promise<PostgresIdempotencyStore> {
  await pool.query(`CREATE TABLE IF NOT EXISTS ${ledger} (id text PRIMARY KEY, amount int NOT NULL)`);
  const store = new PostgresIdempotencyStore(pool, { table: freshTable() });
  await store.migrate();
  return store;
}
