import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from '@jest/globals';
import type pg from 'pg';
import { recordStatements, withTransaction } from '@retry-safe/testing';
import { IdempotencyCoordinator, jsonCodec } from '../../src/index.js';
import {
  POSTGRES_SCHEMA_VERSION,
  PostgresIdempotencyStore,
  schemaSql,
  type SchemaStatement,
} from '../../src/postgres/index.js';
import { ordersWorld, type OrdersWorld } from './orders-world.js';
import { freshTable, postgresWorld, suitePostgres } from './postgres-support.js';
import { sleep } from './support.js';

// Issue 25, item 5: migrate() never blocks the table's writers, two processes migrating at once stay safe, and
// the versioned DDL is exported for migration tools of one's own.
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

/** `migrate()` of a new store on `table` (a booting replica): its duration in ms, or 'still waiting' after `withinMs`. */
async function bootMigrate(pool: pg.Pool, table: string, withinMs: number) {
  const store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  const started = Date.now();
  const migrating = store.migrate().then(() => Date.now() - started);
  const outcome = await Promise.race([migrating, sleep(withinMs).then(() => 'still waiting' as const)]);
  return { outcome, migrating: migrating.finally(() => store.close()) };
}

/** What the catalog holds of a store's schema: recorded versions, the expiry index, the functions. */
async function schemaOf(table: string) {
  const versions = await suite.pool
    .query<{ version: number }>(`SELECT version FROM ${table}__schema ORDER BY version`)
    .then(
      ({ rows }) => rows.map((r) => r.version),
      (error: { code?: string }) => (error.code === '42P01' ? 'no version table' : Promise.reject(error)),
    );
  const { rows: index } = await suite.pool.query(
    'SELECT indisvalid AS valid, indisunique AS unique FROM pg_index WHERE indexrelid = to_regclass($1)',
    [`${table}__expires_at`],
  );
  const { rows: functions } = await suite.pool.query<{ name: string }>(
    `SELECT proname AS name FROM pg_proc WHERE proname LIKE $1 ORDER BY proname`,
    [`${table}\\_\\_%`],
  );
  return { versions, index, functions: functions.map((f) => f.name.slice(table.length + 2)) };
}

/** {@link schemaOf} a table at the current version. */
const current = {
  versions: [1, 2],
  index: [{ valid: true, unique: false }],
  functions: [
    'claim',
    'complete',
    'insert_completed',
    'release',
    'renew',
    'store_if_absent',
    'sweep',
    'tx_complete',
  ],
};

/** Leaves `table` as the library before schema versions created it: no version table, no version 2 function. */
async function asBeforeVersioning(table: string): Promise<void> {
  await suite.pool.query(
    `DROP TABLE IF EXISTS ${table}__schema; DROP FUNCTION IF EXISTS ${table}__tx_complete`,
  );
}

/** Another process whose store migrates `table` when `go()` is called; `result` is its last line. */
async function migratingProcess(table: string) {
  const fixture = fileURLToPath(new URL('./fixtures/migrating-store.mjs', import.meta.url));
  const child = spawn(process.execPath, [fixture, suite.server.url, table], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const result = new Promise<string>((resolve) =>
    child.once('exit', () => resolve(output.trim().split('\n').at(-1) ?? '')),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => output.includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the migrating process exited with ${code}: ${output}`)));
  });
  return { go: () => child.stdin.write('go\n'), result };
}

/**
 * Runs statements as a migration tool runs its files: each run of transactional ones as one SQL text (one
 * implicit transaction), each one marked outsideTransaction on its own.
 */
async function applyAsTool(statements: readonly SchemaStatement[]): Promise<void> {
  const texts: string[] = [];
  let run: string[] = [];
  for (const statement of statements) {
    if (!statement.outsideTransaction) {
      run.push(statement.sql);
      continue;
    }
    if (run.length > 0) texts.push(run.join(';\n'));
    run = [];
    texts.push(statement.sql);
  }
  if (run.length > 0) texts.push(run.join(';\n'));
  for (const text of texts) await suite.pool.query(text);
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

it('upgrades a table of the library before versions beside an open transactional claim, which then completes', async () => {
  const w = await ordersWorld(suite.pool);
  await asBeforeVersioning(w.table);
  const during: Record<string, unknown> = {};
  let upgraded: Promise<number> = Promise.resolve(0);
  const placed = await withTransaction(w.pool, (client) =>
    w.coordinator.coordinateInTransaction(client, w.request('k-held'), async ({ transaction }) => {
      const order = await w.placeOrder(transaction, 'k-held');
      // The upgrade runs while this transaction holds its claim (and the table's ROW EXCLUSIVE lock); the complete
      // after it is the new version's function.
      const upgrade = await bootMigrate(suite.pool, w.table, 1_500);
      upgraded = upgrade.migrating;
      during['upgrade'] = upgrade.outcome;
      during['other'] = (await claimOther(w, 'k-other')).status;
      return order;
    }),
  );
  await upgraded;

  expect(during).toEqual({ upgrade: expect.any(Number), other: 'acquired' });
  expect(placed).toMatchObject({ key: 'k-held' });
  expect(await w.counts('k-held')).toEqual({ orders: 1, records: 1 });
  expect(await schemaOf(w.table)).toEqual(current);
});

it('upgrades a table at version 1 by version 2 alone', async () => {
  const { table } = await postgresWorld(suite.pool, { sweepIntervalMs: 0 });
  await suite.pool.query(
    `DELETE FROM ${table}__schema WHERE version = 2; DROP FUNCTION ${table}__tx_complete`,
  );
  const pool = suite.server.pool({ max: 2 });
  const sent = recordStatements(pool);
  try {
    await new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 }).migrate();
  } finally {
    await pool.end();
  }
  expect(await schemaOf(table)).toEqual(current);
  // Version 1's step did not run again: no table, index or function of it was touched.
  expect(sent.filter((text) => /CREATE (TABLE|INDEX)|__claim/.test(text))).toEqual([]);
});

it('two processes migrating a fresh table at once: both succeed, one set of objects, each version recorded once', async () => {
  const table = freshTable();
  const other = await migratingProcess(table);
  const pools = [suite.server.pool({ max: 2 }), suite.server.pool({ max: 2 })];
  const stores = pools.map((pool) => new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 }));
  try {
    other.go();
    const results = await Promise.allSettled(stores.map((store) => store.migrate()));
    expect({ here: results.map((r) => r.status), there: await other.result }).toEqual({
      here: ['fulfilled', 'fulfilled'],
      there: 'migrated',
    });
    expect(await schemaOf(table)).toEqual(current);
    const tables = await suite.pool.query(
      `SELECT relname FROM pg_class WHERE relname LIKE $1 AND relkind = 'r'`,
      [`${table}%`],
    );
    expect(tables.rows.map((r) => r.relname).sort()).toEqual([table, `${table}__fence`, `${table}__schema`]);
    await expect(
      stores[1]!.claim({
        operation: 'op',
        key: 'k',
        owner: 'o',
        fingerprint: 'fp',
        leaseMs: 1_000,
        retainMs: 1_000,
      }),
    ).resolves.toMatchObject({ status: 'acquired', fencingToken: 1 });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

it('drops and rebuilds an expiry index a failed concurrent build left INVALID', async () => {
  const { table, store } = await postgresWorld(suite.pool, { sweepIntervalMs: 0 });
  // What an index step interrupted before it recorded version 1 leaves: an INVALID index and no version.
  await suite.pool.query(`DROP INDEX ${table}__expires_at; DROP TABLE IF EXISTS ${table}__schema`);
  await suite.pool.query(
    `INSERT INTO ${table} SELECT 'op', 'k' || i, 'c', 1, NULL, 'fp', NULL, '2100-01-01', 1, '{}' FROM generate_series(1, 2) i`,
  );
  const failedBuild = `CREATE UNIQUE INDEX CONCURRENTLY ${table}__expires_at ON ${table} (expires_at)`;
  await expect(suite.pool.query(failedBuild)).rejects.toMatchObject({ code: '23505' });
  expect((await schemaOf(table)).index).toEqual([{ valid: false, unique: true }]);

  await store.migrate();

  expect(await schemaOf(table)).toEqual(current);
});

it('the exported statements, applied as a migration tool would, give a table migrate() finds current and the store works on', async () => {
  const table = freshTable();
  // One migration file per version, as Flyway's V1__, V2__ (or Knex's, Prisma's) would hold them.
  const files = [
    schemaSql({ table, version: 1 }),
    schemaSql({ table, from: 1, version: POSTGRES_SCHEMA_VERSION }),
  ];
  expect(files.map((file) => file.filter((s) => s.outsideTransaction).map((s) => s.index))).toEqual([
    [`"${table}__expires_at"`],
    [],
  ]);
  for (const file of files) await applyAsTool(file);
  expect(await schemaOf(table)).toEqual(current);

  const pool = suite.server.pool({ max: 2 });
  const sent = recordStatements(pool);
  const store = new PostgresIdempotencyStore(pool, { table, sweepIntervalMs: 0 });
  try {
    await store.migrate();
    expect(sent).toEqual([expect.stringMatching(/^SELECT coalesce\(max\(version\), 0\)/)]);

    const coordinator = new IdempotencyCoordinator(store);
    const request = { operation: 'orders.place', key: 'k', ttlMs: 60_000, codec: jsonCodec<{ n: number }>() };
    const place = () =>
      withTransaction(pool, (client) =>
        coordinator.coordinateInTransactionWithOutcome(client, request, async () => ({ n: 1 })),
      );
    await expect(place()).resolves.toMatchObject({ outcome: 'executed', value: { n: 1 } });
    await expect(place()).resolves.toMatchObject({ outcome: 'replayed', value: { n: 1 } });
    await expect(coordinator.coordinate({ ...request, key: 'k2' }, async () => ({ n: 2 }))).resolves.toEqual({
      n: 2,
    });
  } finally {
    await store.close();
    await pool.end();
  }
});
