import { InvalidIdempotencyOptionsError } from '../errors.js';
import { POSTGRES_STORE_DEFAULTS } from './defaults.js';
import { expiryIndexSql, schemaNames, tablesSql, type SchemaNames } from './schema.js';
import { functionsSql, transactionalCompleteSql } from './schema-functions.js';

/**
 * The schema version this library needs and `migrate()` brings a table to. Versions only go forward, and each
 * version's step only adds (a table, an index, a function under a new name), so the previous library version keeps
 * working on it: a rolling deploy runs both at once.
 *
 * 1. The records table, its fencing floor, the expiry index and the state-change functions (everything a library
 *    before versioning created; such a table reads as version 0, and every statement here is idempotent).
 * 2. `<table>__tx_complete`: the transactional path's complete, which does not require the row to be unexpired
 *    (the caller's transaction holds the row's lock, so the transaction is the lease).
 */
export const POSTGRES_SCHEMA_VERSION = 2;

/** One statement of a schema version's step; run them in the order given. */
export interface SchemaStatement {
  /** The schema version whose step this statement belongs to. */
  readonly version: number;
  /** One SQL statement, without a trailing semicolon; idempotent (running it again changes nothing). */
  readonly sql: string;
  /**
   * It must run on its own, outside any transaction block (`CREATE INDEX CONCURRENTLY`); the others may share one
   * transaction. In Flyway: a migration of its own with `executeInTransaction=false`; in Knex: a migration with
   * `config = { transaction: false }`; in Prisma Migrate: a migration file holding only this statement.
   */
  readonly outsideTransaction: boolean;
  /**
   * For an index build: the index's quoted, schema-qualified name. A build that failed or was interrupted leaves
   * the index INVALID, and `IF NOT EXISTS` then skips it: drop it (`DROP INDEX CONCURRENTLY`) and run this again.
   */
  readonly index?: string;
}

/** Options of {@link schemaSql}. */
export interface SchemaSqlOptions {
  /**
   * The store's table (`name` or `schema.name`, lower-case), as given to `PostgresIdempotencyStore`.
   * @default 'idempotency_records'
   */
  table?: string;
  /**
   * The version to bring the table to.
   * @default POSTGRES_SCHEMA_VERSION
   */
  version?: number;
  /**
   * The version the table is at already (0: none, or a table created before versioning): only the steps of the
   * versions after it are returned, as the separate migration files of a versioned migration tool.
   * @default 0
   */
  from?: number;
}

/** `CREATE TABLE` of the applied versions: one row per version, written by the last statement of its step. */
const versionsTableSql = (n: SchemaNames): string =>
  `CREATE TABLE IF NOT EXISTS ${n.versions} (
  version int PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

const recorded = (n: SchemaNames, version: number): SchemaStatement => ({
  version,
  sql: `INSERT INTO ${n.versions} (version) VALUES (${version}) ON CONFLICT (version) DO NOTHING`,
  outsideTransaction: false,
});

const inTransaction = (version: number, sql: string): SchemaStatement => ({
  version,
  sql,
  outsideTransaction: false,
});

/** Every version's step, in order; a step's last statement records its version. */
function steps(n: SchemaNames): SchemaStatement[][] {
  return [
    [
      ...[versionsTableSql(n), ...tablesSql(n), ...functionsSql(n)].map((sql) => inTransaction(1, sql)),
      { version: 1, sql: expiryIndexSql(n), outsideTransaction: true, index: n.qualifiedIndex },
      recorded(n, 1),
    ],
    [inTransaction(2, transactionalCompleteSql(n)), recorded(n, 2)],
  ];
}

/** The statements that bring a table at version `from` to version `to` (both already checked). */
export function upgradeStatements(n: SchemaNames, from: number, to: number): SchemaStatement[] {
  return steps(n).slice(from, to).flat();
}

/**
 * The DDL `migrate()` runs, for a migration tool of your own (Flyway, Prisma Migrate, Knex, ...): the statements
 * that bring `table` from version `from` to `version`, in order, each idempotent, the last of each version's step
 * recording it in `<table>__schema`. After they ran, `migrate()` finds the table current and does nothing, so a
 * service may keep calling it. Run a statement marked `outsideTransaction` on its own, outside any transaction.
 *
 * ```ts
 * import { POSTGRES_SCHEMA_VERSION, schemaSql } from '@retry-safe/idempotency/postgres';
 *
 * // One migration file per version: V1 from 0, V2 from 1, ...
 * const v2 = schemaSql({ table: 'idempotency_records', from: 1, version: POSTGRES_SCHEMA_VERSION });
 * const text = v2.map((statement) => `${statement.sql};`).join('\n\n');
 * ```
 * @throws InvalidIdempotencyOptionsError for a table name the store refuses, or versions outside
 *   `0 <= from <= version <= POSTGRES_SCHEMA_VERSION` (with `version` at least 1)
 */
export function schemaSql(options: SchemaSqlOptions = {}): SchemaStatement[] {
  const names = schemaNames(options.table ?? POSTGRES_STORE_DEFAULTS.table);
  const to = options.version ?? POSTGRES_SCHEMA_VERSION;
  const from = options.from ?? 0;
  const valid =
    Number.isInteger(to) && Number.isInteger(from) && from >= 0 && to >= 1 && to <= POSTGRES_SCHEMA_VERSION;
  if (!valid || from > to) {
    throw new InvalidIdempotencyOptionsError(
      `schemaSql needs 0 <= from <= version <= ${POSTGRES_SCHEMA_VERSION} (integers, version at least 1), got from ${String(from)}, version ${String(to)}`,
    );
  }
  return upgradeStatements(names, from, to);
}
