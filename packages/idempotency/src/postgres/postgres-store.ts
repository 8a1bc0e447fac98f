import type { Pool } from 'pg';
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
import type { CompletedRecordValues } from '../one-statement.js';
import { insertCompletedSql, schemaNames, type SchemaNames } from './schema.js';
import { MIGRATE_DEFAULTS, migrateSchema, type MigrateOptions } from './migration.js';
import { transactionConflictOf } from './sql-errors.js';
import { endBackendSql, lockWaitAsInProgress } from './claim-faults.js';
import { GiveBacks } from './give-backs.js';
import { PooledRunner } from './pooled-runner.js';
import { Sweeper } from './sweeper.js';
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
   * How often expired rows are deleted, in batches of {@link sweepBatchSize} until one comes back short. The
   * sweep starts with the store (`migrate()`, else its first claim or transaction) with a round at once. Expired
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
  private readonly runner: PooledRunner;
  private readonly giveBacks: GiveBacks;
  private readonly sweeper: Sweeper;
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
    this.sweeper = new Sweeper(() => this.sweepExpired(), this.sweepBatchSize, this.sweepIntervalMs);
    this.runner = new PooledRunner(pool, this.statements, this.commandTimeoutMs);
    this.giveBacks = new GiveBacks({
      endBackend: async ({ pid, checkedOutAt }) => {
        const waitMs = Math.max(1, Math.floor(this.commandTimeoutMs / 2));
        const rows = await this.runner.query(endBackendSql, [pid, Date.now() - checkedOutAt, waitMs]);
        if (rows.some((row) => row['ended'] !== true)) throw new Error(`backend ${pid} has not ended yet`);
      },
      release: (request) => this.release(request),
    });
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
  insertCompletedSql(first: number, record: CompletedRecordValues): { sql: string; values: unknown[] } {
    // A caller on this path alone (migrating by other means) must also get its expired rows swept.
    this.startSweeper();
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
   * Brings the table to `POSTGRES_SCHEMA_VERSION`: creates the table, its expiry index and its functions, or
   * adds what a later version needs. When the version recorded in `<table>__schema` is current (every boot after
   * the first) it is one plain read and nothing else, so it never waits for, nor holds up, the table's writers (an
   * open transactional claim included). Otherwise the missing versions' steps run under a session-level advisory
   * lock on a connection of its own (closed afterwards): tables and functions in transactions whose lock waits are
   * bounded by `commandTimeoutMs`, indexes built `CONCURRENTLY` (an INVALID one a failed build left is dropped and
   * built again). Safe from many processes at once: one migrates, the others wait for it (at most `waitMs`) and
   * find the table current. The same statements are `schemaSql()`'s, for a migration tool of your own.
   * @throws IdempotencyStoreUnavailableError when PostgreSQL fails or refuses a statement (the `cause`), or
   *   another process' migration of the table took longer than `waitMs`
   */
  async migrate(options: MigrateOptions = {}): Promise<void> {
    const waitMs = options.waitMs ?? MIGRATE_DEFAULTS.waitMs;
    assertIntegerIn('waitMs', waitMs, 0, 24 * 60 * 60 * 1_000);
    await migrateSchema(
      { pool: this.pool, names: this.names, lockTimeoutMs: this.commandTimeoutMs },
      { waitMs },
    );
    // Every path sweeps from here on, also one that only ever writes with insertCompletedSql.
    this.startSweeper();
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    this.startSweeper();
    // This process' own earlier claim of the key that got no answer is given back first: its retry never waits
    // out a reservation nobody will complete.
    await this.giveBacks.settle(request);
    try {
      return await claimOn(
        (change, id, args) =>
          // Sent but unanswered: it may have been granted, and the caller, told "unavailable", will never
          // complete it. Given back (see GiveBacks), or the key would stay blocked for a lease.
          this.runner.run(change, id, args, (backend) => this.giveBacks.add(request, backend)),
        request,
      );
    } catch (error) {
      // A lock wait that ran out is another transaction holding the key (its claim not yet committed): in progress.
      const inProgress = lockWaitAsInProgress(error);
      if (inProgress) return inProgress;
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
    const listening = this.notifications.listen(`${id.operation}:${id.key}`, listener);
    const remove = await this.runner.bounded(id, listening).catch((error: unknown) => {
      // Gave up waiting for the LISTEN connection: the listener must not stay behind once it comes.
      listening.then((late) => late()).catch(() => undefined);
      throw error;
    });
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
    await this.sweeper.stop();
    this.giveBacks.close();
    await this.notifications.close();
  }

  /** One function call on a pooled connection, bounded end to end by `commandTimeoutMs`. */
  private readonly standalone: Runner = (change, id, args) => this.runner.run(change, id, args);

  private startSweeper(): void {
    if (!this.closed) this.sweeper.start();
  }
}
