import { hash } from 'node:crypto';
import { InvalidIdempotencyOptionsError } from '../errors.js';

/** Version of the row layout written by this code; a row with another version is reported corrupt. */
export const PG_RECORD_FORMAT_VERSION = 1;

// Lower-case SQL identifiers only, optionally schema-qualified: names are spliced into DDL, never user input.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

/** SQLSTATE the claim raises when a transactional call runs in autocommit (no open transaction). */
export const NOT_IN_TRANSACTION = 'RS001';

/** The transaction-local setting a transactional claim's first statement sets, and the claim checks. */
export const OPEN_TRANSACTION_MARK = 'retry_safe.open_transaction';

/** The statement that sets {@link OPEN_TRANSACTION_MARK} for the rest of the caller's transaction. */
export const MARK_OPEN_TRANSACTION_SQL = `SELECT set_config('${OPEN_TRANSACTION_MARK}', 'on', true)`;

/** The SQL names one store uses, all derived from its table name. */
export interface SchemaNames {
  /** `"schema"."table"` or `"table"`, quoted. */
  readonly table: string;
  /** `<table>__fence`, quoted: one row holding the highest fencing token ever swept. */
  readonly fence: string;
  /** `<table>__schema`, quoted: one row per schema version applied to this table (see schema-versions.ts). */
  readonly versions: string;
  /** The expiry index's name, quoted, as `CREATE INDEX` takes it (no schema: it goes in the table's). */
  readonly index: string;
  /** The expiry index's name, quoted and schema-qualified, for catalog look-ups and `DROP INDEX`. */
  readonly qualifiedIndex: string;
  /** The NOTIFY channel complete, release and store-if-absent announce on. */
  readonly channel: string;
  /** Quoted, schema-qualified name of one state-change function, e.g. `fn('claim')`. */
  fn(name: StateChange): string;
  /** Key of the advisory lock that serialises `migrate()` (the session-level lock, and earlier versions' xact one). */
  readonly migrationLockKey: string;
  /** Unquoted table name, for catalog look-ups. */
  readonly bareTable: string;
}

/** The state changes, one SQL function each (as the Redis store has one Lua script each). */
export type StateChange =
  | 'claim'
  | 'complete'
  | 'tx_complete'
  | 'renew'
  | 'release'
  | 'store_if_absent'
  | 'insert_completed'
  | 'sweep';

/**
 * `<schema>__<table>__events`, or, where that passes PostgreSQL's 63-byte identifiers (a schema-qualified name
 * near the 55-character limit), a hash of the table name: pg_notify refuses a longer channel.
 */
function channelOf(table: string): string {
  const channel = `${table.replace('.', '__')}__events`;
  return channel.length <= 63 ? channel : `idem_${hash('sha256', table, 'hex').slice(0, 16)}__events`;
}

/** Validates `table` (`name` or `schema.name`) and derives every name from it. */
export function schemaNames(table: string): SchemaNames {
  const parts = table.split('.');
  // The NOTIFY channel (`<table>__events`) must fit PostgreSQL's 63-byte identifiers.
  if (parts.length > 2 || table.length > 55 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new InvalidIdempotencyOptionsError(
      `table must be a lower-case SQL identifier (optionally schema-qualified, at most 55 characters in all), got ${JSON.stringify(table)}`,
    );
  }
  const bare = parts[parts.length - 1]!;
  const schema = parts.length === 2 ? `"${parts[0]}".` : '';
  const index = `"${table.replace('.', '__')}__expires_at"`;
  return {
    table: `${schema}"${bare}"`,
    bareTable: table,
    fence: `${schema}"${bare}__fence"`,
    versions: `${schema}"${bare}__schema"`,
    index,
    qualifiedIndex: `${schema}${index}`,
    channel: channelOf(table),
    fn: (name) => `${schema}"${bare}__${name}"`,
    migrationLockKey: `retry-safe.idempotency:${table}`,
  };
}

/**
 * The fencing floor as a grant reads it. Under READ COMMITTED each statement sees the latest committed floor. A
 * REPEATABLE READ or SERIALIZABLE transaction would read the floor of its snapshot, older than a sweep that
 * committed since (which deleted the key's row and raised the floor past its token), and grant that token again;
 * so there the floor row is read `FOR SHARE`, which fails with 40001 (roll back and retry) when the floor changed
 * after the snapshot, and makes a later sweep wait for the transaction. `coalesce` evaluates the locking read only
 * when the plain one is skipped.
 */
export function floorSql(n: SchemaNames): string {
  return `coalesce((SELECT f.floor FROM ${n.fence} f
      WHERE current_setting('transaction_isolation') = 'read committed'),
    (SELECT f.floor FROM ${n.fence} f FOR SHARE))`;
}

/**
 * The statement of `insert_completed`, on the given SQL expressions (operation, key, owner, fingerprint, payload,
 * ttl ms, format version): the function's body, and the caller's one-statement form
 * (`PostgresIdempotencyStore.insertCompletedSql`), written once. Answers `fencing_token`, or no row.
 */
export function insertCompletedSql(n: SchemaNames, args: readonly string[]): string {
  const [operation, key, owner, fingerprint, payload, ttlMs, version] = args;
  return `INSERT INTO ${n.table} AS t VALUES (${operation}, ${key},
      CASE WHEN ${payload} IS NULL THEN 'e' ELSE 'c' END, ${floorSql(n)} + 1, ${owner},
      ${fingerprint}, NULL, clock_timestamp() + ${ttlMs} * interval '1 ms', ${version}, ${payload})
    ON CONFLICT DO NOTHING RETURNING t.fencing_token`;
}

/**
 * The records table, its fencing floor and the floor's one row: version 1 of the schema (schema-versions.ts), each
 * statement idempotent and taking no lock a writer waits for when its object exists.
 *
 * Row layout (one row per operation + key; the primary key is the unique index concurrent claims meet on):
 *   state          'p' pending (owner holds a lease), 'c' completed (payload is the result), 'e' completed but
 *                  the value could not be encoded (no payload; never run again), 'r' released
 *   fencing_token  grows with every grant: max(previous, floor) + 1, where the floor (one row in
 *                  `<table>__fence`) is raised to the highest token the sweep ever deleted, in the sweep's own
 *                  transaction; so a key's tokens keep growing after its row expired and was swept
 *   owner          token of the attempt that was granted the row (kept after completion and release, so the
 *                  same owner's repeated complete/release are recognised)
 *   lease_until    end of the owner's lease (pending only), on the database clock: every process shares it
 *   expires_at     exact end of the row's life; from then on the row counts as absent, and the sweep deletes it
 *   version        row format; any other value is refused as corrupt rather than misread
 * No CHECK on state: a row this code cannot read must reach the claim and be refused as corrupt, not be hidden.
 */
export function tablesSql(n: SchemaNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${n.table} (
  operation text NOT NULL,
  key text NOT NULL,
  state text NOT NULL,
  fencing_token bigint NOT NULL,
  owner text,
  fingerprint text NOT NULL,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL,
  version smallint NOT NULL,
  payload text,
  PRIMARY KEY (operation, key)
)`,
    `CREATE TABLE IF NOT EXISTS ${n.fence} (id boolean PRIMARY KEY DEFAULT true CHECK (id), floor bigint NOT NULL)`,
    // Inserted only where the plain read finds no row: ON CONFLICT alone would wait for a sweep raising the floor.
    `INSERT INTO ${n.fence} (floor) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${n.fence}) ON CONFLICT DO NOTHING`,
  ];
}

/**
 * The expiry index the sweep reads, built `CONCURRENTLY` (outside any transaction): a plain `CREATE INDEX` takes a
 * SHARE lock, which waits for every open writer of the table and makes every writer after it wait in turn.
 */
export function expiryIndexSql(n: SchemaNames): string {
  return `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${n.index} ON ${n.table} (expires_at)`;
}
