import { setTimeout as delay } from 'node:timers/promises';
import type { Pool, PoolClient } from 'pg';
import { IdempotencyStoreUnavailableError } from '../errors.js';
import { guardClient } from './client-guard.js';
import type { SchemaNames } from './schema.js';
import { POSTGRES_SCHEMA_VERSION, upgradeStatements, type SchemaStatement } from './schema-versions.js';
import { sqlStateOf, storeErrorOf } from './sql-errors.js';

/** Options of `PostgresIdempotencyStore.migrate`. */
export interface MigrateOptions {
  /**
   * How long to wait for another process that is migrating the same table (a replica booting at the same moment,
   * a long index build) before failing with `IDEMPOTENCY_STORE_UNAVAILABLE`. Not waited for at all when the table
   * is current.
   * @default 60_000
   */
  waitMs?: number;
}

/** Defaults of {@link MigrateOptions}. */
export const MIGRATE_DEFAULTS = { waitMs: 60_000 } as const;

/** Longest pause between two attempts to take the migration lock. */
const MAX_POLL_MS = 200;

/** SQLSTATEs of a missing version table (42P01) or schema (3F000): nothing of this versioning is there yet. */
const NOT_MIGRATED: ReadonlySet<string> = new Set(['42P01', '3F000']);

type Queryable = Pick<PoolClient, 'query'>;

/** How the store migrates: its pool and names, and the bound of a DDL's lock wait. */
export interface MigrationTarget {
  readonly pool: Pool;
  readonly names: SchemaNames;
  /** `lock_timeout` of the DDL transactions (the store's `commandTimeoutMs`). */
  readonly lockTimeoutMs: number;
}

/**
 * Brings the table to {@link POSTGRES_SCHEMA_VERSION}. Current (the usual boot): one plain read of the version
 * table and nothing else, so it never waits for, nor queues a lock in front of, the table's writers. Otherwise on a
 * connection of its own: the migration lock, the version read again under it (another process may just have
 * migrated), the missing versions' steps, the unlock.
 */
export async function migrateSchema(
  target: MigrationTarget,
  options: Required<MigrateOptions>,
): Promise<void> {
  try {
    if ((await appliedVersion(target.pool, target.names)) >= POSTGRES_SCHEMA_VERSION) return;
    const client = await target.pool.connect();
    const unguard = guardClient(client);
    try {
      if (!(await lockUnlessCurrent(client, target.names, options.waitMs))) return;
      try {
        const from = await appliedVersion(client, target.names);
        const statements = upgradeStatements(target.names, from, POSTGRES_SCHEMA_VERSION);
        await applyStatements(client, statements, target.lockTimeoutMs);
      } finally {
        await client
          .query(lockSql('pg_advisory_unlock'), [target.names.migrationLockKey])
          .catch(() => undefined);
      }
    } finally {
      // Destroyed, never pooled again: the index builds lifted its timeouts for the session, and a lock a failed
      // unlock left behind goes with the session.
      client.release(true);
      unguard();
    }
  } catch (error) {
    throw storeErrorOf(error, { operation: '', key: '' });
  }
}

const lockSql = (fn: 'pg_try_advisory_lock' | 'pg_advisory_unlock'): string =>
  `SELECT ${fn}(hashtextextended($1, 0)) AS done`;

/** The highest version recorded, by a plain read (no lock a writer or a DDL waits for); 0 when none is. */
async function appliedVersion(db: Queryable, n: SchemaNames): Promise<number> {
  try {
    const { rows } = await db.query<{ version: number }>(
      `SELECT coalesce(max(version), 0)::int AS version FROM ${n.versions}`,
    );
    return rows[0]?.version ?? 0;
  } catch (error) {
    const state = sqlStateOf(error);
    if (state !== undefined && NOT_MIGRATED.has(state)) return 0;
    throw error;
  }
}

/**
 * Takes the session-level migration lock (the key earlier versions' `migrate()` took per transaction, so they
 * serialise with this one too), or returns false once another process made the table current. Polled with
 * `pg_try_advisory_lock`, never waited for in a statement: a session waiting in `pg_advisory_lock` holds a snapshot,
 * and `CREATE INDEX CONCURRENTLY` in the session holding the lock waits for every older snapshot to end; the two
 * would wait for each other until the deadlock detector cancelled one.
 */
async function lockUnlessCurrent(client: Queryable, n: SchemaNames, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (let pauseMs = 10; ; pauseMs = Math.min(pauseMs * 2, MAX_POLL_MS)) {
    const { rows } = await client.query<{ done: boolean }>(lockSql('pg_try_advisory_lock'), [
      n.migrationLockKey,
    ]);
    if (rows[0]?.done === true) return true;
    if ((await appliedVersion(client, n)) >= POSTGRES_SCHEMA_VERSION) return false;
    const leftMs = deadline - Date.now();
    if (leftMs <= 0) {
      throw new IdempotencyStoreUnavailableError(
        `another process has been migrating ${n.bareTable} for more than ${waitMs} ms (migrate's waitMs)`,
        { operation: '', key: '' },
      );
    }
    await delay(Math.min(pauseMs, leftMs));
  }
}

/** Runs the statements in order: each run of transactional ones in one transaction, the others on their own. */
async function applyStatements(
  client: Queryable,
  statements: readonly SchemaStatement[],
  lockTimeoutMs: number,
): Promise<void> {
  // An index build waits for every transaction writing the table to end, then reads the table, blocking no writer
  // meanwhile. A timeout would leave the index INVALID for the next migrate() to drop and start over: on a large
  // table it would never finish. (This session is destroyed afterwards, with its settings.)
  await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
  let group: SchemaStatement[] = [];
  for (const statement of statements) {
    if (!statement.outsideTransaction) {
      group.push(statement);
      continue;
    }
    await inTransaction(client, group, lockTimeoutMs);
    group = [];
    await outsideTransaction(client, statement);
  }
  await inTransaction(client, group, lockTimeoutMs);
}

async function inTransaction(
  client: Queryable,
  statements: readonly SchemaStatement[],
  lockTimeoutMs: number,
): Promise<void> {
  if (statements.length === 0) return;
  await client.query('BEGIN');
  try {
    // No step may queue a lock request in front of the table's writers for longer than a store call may wait: one it
    // cannot get by then fails the migration (55P03, run it again) instead of stalling every claim behind it.
    await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
    for (const statement of statements) await client.query(statement.sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function outsideTransaction(client: Queryable, statement: SchemaStatement): Promise<void> {
  if (statement.index !== undefined) {
    const { rows } = await client.query<{ valid: boolean }>(
      'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
      [statement.index],
    );
    // Built: skipped, as IF NOT EXISTS would, but without its SHARE UPDATE EXCLUSIVE lock (which waits for VACUUM).
    if (rows[0]?.valid === true) return;
    // INVALID: a concurrent build that failed or was interrupted (a crash, a cancel, a timeout). IF NOT EXISTS would
    // keep it as it is, unused by reads yet updated by every write: dropped and built again.
    if (rows[0] !== undefined) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${statement.index}`);
  }
  await client.query(statement.sql);
}
