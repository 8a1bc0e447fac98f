import type { Pool, QueryConfig } from 'pg';
import { Deadlines } from '../deadline.js';
import type { IdempotencyError } from '../errors.js';
import type {
  ClaimRequest,
  ClaimResult,
  CompleteRequest,
  RecordId,
  ReleaseRequest,
  RenewRequest,
  StoreIfAbsentRequest,
} from '../store.js';
import type {
  SqlTransaction,
  TransactionBoundStore,
  TransactionalIdempotencyStore,
} from '../transactional.js';
import { assertIntegerIn } from '../validation.js';
import { POSTGRES_STORE_DEFAULTS, POSTGRES_STORE_LIMITS } from './defaults.js';
import { Notifications } from './notifications.js';
import { insertCompletedSql, schemaNames, schemaSql, type SchemaNames } from './schema.js';
import { storeErrorOf, transactionConflictOf } from './sql-errors.js';
import {
  claimOn,
  completeOn,
  insertCompletedArgs,
  releaseOn,
  renewOn,
  statementsFor,
  storeIfAbsentOn,
  storeOn,
  transactionRunner,
  type Runner,
  type Statements,
} from './state-changes.js';

/** Options of {@link PostgresIdempotencyStore}; every default is listed here once. */
export interface PostgresIdempotencyStoreOptions {
  /**
   * Table of the records (`name` or `schema.name`, lower-case); its functions and NOTIFY channel are named after it.
   * @default 'idempotency_records'
   */
  table?: string;
  /**
   * Upper bound of every standalone store call, end to end: taking a pooled connection, the statement, and any
   * lock wait in the database (sent as `lock_timeout`, so the server gives up too, not only this process). A call
   * that exceeds it fails with `IDEMPOTENCY_STORE_UNAVAILABLE` and its connection is destroyed, never reused.
   * @default 1000
   */
  commandTimeoutMs?: number;
  /**
   * How often expired rows are deleted (in batches of {@link sweepBatchSize}, at most 10 batches a round). Expired
   * rows already count as absent; the sweep only reclaims their space. 0 turns it off (call `sweepExpired`).
   * @default 60_000
   */
  sweepIntervalMs?: number;
  /**
   * Rows one sweep statement deletes at most.
   * @default 1000
   */
  sweepBatchSize?: number;
}

const MAX_SWEEP_BATCHES_PER_ROUND = 10;

/**
 * {@link IdempotencyStore} on PostgreSQL (node-postgres). Standalone, it keeps the Redis store's contract exactly:
 * every state change is one SQL function (the Lua scripts' counterparts, created by {@link migrate}) answering the
 * same codes, mapped to results in the same place. Transactional, {@link inTransaction} runs the same functions on
 * the caller's transaction, so a record commits or rolls back with the caller's own writes. Takes a pool and never
 * ends it; {@link close} only gives back the LISTEN connection and stops the sweep.
 */
export class PostgresIdempotencyStore implements TransactionalIdempotencyStore {
  readonly table: string;
  readonly commandTimeoutMs: number;
  readonly sweepIntervalMs: number;
  readonly sweepBatchSize: number;
  private readonly names: SchemaNames;
  private readonly statements: Statements;
  private readonly notifications: Notifications;
  private readonly deadlines = new Deadlines();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    options: PostgresIdempotencyStoreOptions = {},
  ) {
    this.table = options.table ?? POSTGRES_STORE_DEFAULTS.table;
    this.commandTimeoutMs = options.commandTimeoutMs ?? POSTGRES_STORE_DEFAULTS.commandTimeoutMs;
    this.sweepIntervalMs = options.sweepIntervalMs ?? POSTGRES_STORE_DEFAULTS.sweepIntervalMs;
    this.sweepBatchSize = options.sweepBatchSize ?? POSTGRES_STORE_DEFAULTS.sweepBatchSize;
    for (const option of ['commandTimeoutMs', 'sweepIntervalMs', 'sweepBatchSize'] as const) {
      const { min, max } = POSTGRES_STORE_LIMITS[option];
      assertIntegerIn(option, this[option], min, max);
    }
    this.names = schemaNames(this.table);
    this.statements = statementsFor(this.names);
    this.notifications = new Notifications(pool, this.names.channel);
  }

  /**
   * For a caller that writes its own row and a fresh key's completed record in ONE statement: the `INSERT` of the
   * record (the same statement as the `insert_completed` function's), with parameters `$first` .. `$first+6`, and
   * the values for them, to use as a data-modifying CTE whose caller inserts its own row only `FROM` the CTE's row
   * (`WITH rec AS (<sql>) INSERT INTO mine SELECT ... FROM rec`). It answers `fencing_token`, the granted token, or
   * no row when the key has any row (live or not; a concurrent uncommitted insert of the key makes it wait until
   * that ends): then nothing of the caller's is written and the caller goes through the coordinator
   * (`coordinateInTransaction`), which replays, refuses or runs again. The `payload` must be the request codec's
   * encoding of the value the caller answers, so a replay is the same bytes.
   */
  insertCompletedSql(
    first: number,
    record: {
      operation: string;
      key: string;
      owner: string;
      fingerprint: string;
      payload: string;
      ttlMs: number;
    },
  ): { sql: string; values: unknown[] } {
    const types = ['text', 'text', 'text', 'text', 'text', 'bigint', 'smallint'];
    return {
      sql: insertCompletedSql(
        this.names,
        types.map((type, i) => `$${first + i}::${type}`),
      ),
      values: insertCompletedArgs(record),
    };
  }

  /**
   * Creates the table, its expiry index and its functions if absent (and replaces the functions by this
   * version's). Safe to run from many processes at once: a transaction-level advisory lock serialises them.
   */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        this.names.migrationLockKey,
      ]);
      await client.query(schemaSql(this.names));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    this.startSweeper();
    const sentAt = Date.now();
    try {
      return await claimOn(this.standalone, request);
    } catch (error) {
      // The claim may have been granted and its reply lost with the destroyed connection. The caller was told
      // the store is unavailable and will never complete it: give it back, or the key stays blocked for a lease.
      if (Date.now() - sentAt >= this.commandTimeoutMs) this.giveBack(request);
      throw error;
    }
  }

  complete(request: CompleteRequest): Promise<boolean> {
    return completeOn(this.standalone, request);
  }

  renew(request: RenewRequest): Promise<boolean> {
    return renewOn(this.standalone, request);
  }

  release(request: ReleaseRequest): Promise<boolean> {
    return releaseOn(this.standalone, request);
  }

  storeIfAbsent(request: StoreIfAbsentRequest): Promise<boolean> {
    return storeIfAbsentOn(this.standalone, request);
  }

  /** PostgreSQL `text` holds every character but U+0000; such a result is recorded as unencodable instead. */
  unstorable(payload: string): string | undefined {
    return payload.includes('\u0000') ? 'PostgreSQL text cannot hold U+0000' : undefined;
  }

  /** LISTEN on the table's channel; resolves once listening, so a completion after it is never missed. */
  async watch(id: RecordId, listener: () => void): Promise<() => Promise<void>> {
    const remove = await this.bounded(id, this.notifications.listen(`${id.operation}:${id.key}`, listener));
    return async () => remove();
  }

  /** The same state changes on the caller's open transaction, without timeouts of their own (the caller's apply). */
  inTransaction(transaction: SqlTransaction): TransactionBoundStore {
    // Transactional use alone must also get its expired rows swept.
    this.startSweeper();
    return storeOn(transactionRunner(this.statements, transaction));
  }

  transactionConflict(error: unknown, id: RecordId): IdempotencyError | undefined {
    return transactionConflictOf(error, id);
  }

  /** Deletes at most {@link sweepBatchSize} expired rows; returns how many. */
  async sweepExpired(): Promise<number> {
    const row = await this.standalone('sweep', { operation: '', key: '' }, [this.sweepBatchSize]);
    return Number(row['reply']);
  }

  /** Stops the sweep and gives back the LISTEN connection. The pool passed in stays open. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.notifications.close();
  }

  /** One function call on a pooled connection, bounded end to end by `commandTimeoutMs`. */
  private readonly standalone: Runner = async (change, id, args) => {
    const deadline = Date.now() + this.commandTimeoutMs;
    const connecting = this.pool.connect();
    const client = await this.bounded(id, connecting).catch((error: unknown) => {
      // A connection that arrives after we gave up goes straight back.
      connecting.then((late) => late.release()).catch(() => undefined);
      throw error;
    });
    const statement = this.statements[change];
    const remaining = Math.max(1, deadline - Date.now());
    try {
      const { rows } = await client.query({
        name: statement.name,
        text: statement.text,
        // The server's lock_timeout ends a little earlier than our timer, so a lock wait is answered by PostgreSQL
        // (the connection stays usable) rather than cut off here.
        values: change === 'sweep' ? args : [...args, Math.max(1, Math.floor(remaining * 0.9))],
        // node-postgres' own read timeout; it rejects the query, and release(error) below destroys the connection.
        query_timeout: remaining,
      } as QueryConfig);
      client.release();
      return rows[0] as Record<string, unknown>;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw storeErrorOf(error, id);
    }
  };

  /** Settles with `promise`, or fails with `IDEMPOTENCY_STORE_UNAVAILABLE` after `commandTimeoutMs`. */
  private bounded<T>(id: RecordId, promise: Promise<T>): Promise<T> {
    const timeout = () => new Error(`PostgreSQL did not answer within ${this.commandTimeoutMs} ms`);
    return this.deadlines.bound(
      promise,
      this.commandTimeoutMs,
      () => storeErrorOf(timeout(), id),
      (error) => storeErrorOf(error, id),
    );
  }

  /** Releases a possibly granted claim in the background, retrying until PostgreSQL answers or its lease ends. */
  private giveBack(request: ClaimRequest): void {
    const until = Date.now() + request.leaseMs;
    const attempt = (): void => {
      if (this.closed || Date.now() > until) return;
      this.release(request).catch(() => setTimeout(attempt, 100).unref());
    };
    attempt();
  }

  private startSweeper(): void {
    if (this.sweeper || this.closed || this.sweepIntervalMs === 0) return;
    this.sweeper = setInterval(() => void this.sweepRound(), this.sweepIntervalMs);
    this.sweeper.unref();
  }

  private async sweepRound(): Promise<void> {
    try {
      for (let batch = 0; batch < MAX_SWEEP_BATCHES_PER_ROUND; batch++) {
        if ((await this.sweepExpired()) < this.sweepBatchSize) return;
      }
    } catch {
      // The next round tries again; expired rows count as absent meanwhile.
    }
  }
}
