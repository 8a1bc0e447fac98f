import type { Pool, PoolClient, QueryConfig } from 'pg';
import { Deadlines } from '../deadline.js';
import type { RecordId } from '../store.js';
import { guardClient } from './client-guard.js';
import type { StateChange } from './schema.js';
import { sqlStateOf, storeErrorOf } from './sql-errors.js';
import type { Statements } from './state-changes.js';

/** The backend a statement was sent to, as far as this process knows it: enough to end it from another session. */
export interface SentTo {
  /** The backend's process id (`pg_backend_pid()`), from the connection's start-up. */
  readonly pid: number;
  /** `Date.now()` when the connection was taken from the pool: its backend started before that. */
  readonly checkedOutAt: number;
}

/**
 * The server's `lock_timeout` for a call with `remainingMs` left: the rest of the budget less room for the reply
 * to travel back, so that a lock wait is answered by PostgreSQL (55P03 on a connection that stays usable), not cut
 * off by the local read timeout. A quarter of the time left, at least 10 ms and at most 250 ms, is kept for that.
 */
export function lockTimeoutFor(remainingMs: number): number {
  const margin = Math.min(250, Math.max(10, Math.floor(remainingMs / 4)));
  return Math.max(1, Math.floor(remainingMs - margin));
}

/**
 * The standalone calls: one function call on a pooled connection, bounded end to end by `commandTimeoutMs`
 * (taking the connection, the statement, any lock wait). A checked-out connection has an `'error'` listener for
 * as long as it is out, so a connection lost mid-call fails the call and never the process.
 */
export class PooledRunner {
  private readonly deadlines = new Deadlines();

  constructor(
    private readonly pool: Pool,
    private readonly statements: Statements,
    readonly commandTimeoutMs: number,
  ) {}

  /**
   * Runs `change` and returns its reply row. When it fails after the statement was sent, without an answer from
   * PostgreSQL (a lost connection, a read timeout), `maybeRan` hears which backend it went to: the statement may
   * have run, or may still. A statement PostgreSQL refused (any SQLSTATE) ran not at all: its transaction rolled
   * back. A call that never got a connection sent nothing.
   */
  async run(
    change: StateChange,
    id: RecordId,
    args: unknown[],
    maybeRan?: (backend: SentTo) => void,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + this.commandTimeoutMs;
    const client = await this.checkOut(id);
    const checkedOutAt = Date.now();
    const unguard = guardClient(client);
    const statement = this.statements[change];
    const remaining = Math.max(1, deadline - Date.now());
    try {
      const { rows } = await client.query({
        name: statement.name,
        text: statement.text,
        values: change === 'sweep' ? args : [...args, lockTimeoutFor(remaining)],
        // node-postgres' own read timeout; it rejects the query, and release(error) below destroys the connection.
        query_timeout: remaining,
      } as QueryConfig);
      client.release();
      unguard();
      return rows[0] as Record<string, unknown>;
    } catch (error) {
      const pid = (client as PoolClient & { processID?: number }).processID;
      client.release(error instanceof Error ? error : true);
      unguard();
      if (maybeRan && sqlStateOf(error) === undefined && typeof pid === 'number') {
        maybeRan({ pid, checkedOutAt });
      }
      throw storeErrorOf(error, id);
    }
  }

  /** Any other statement, bounded the same way (for the store's own housekeeping); returns its rows. */
  async query(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    const id = { operation: '', key: '' };
    const client = await this.checkOut(id);
    const unguard = guardClient(client);
    try {
      const { rows } = await client.query({
        text,
        values,
        query_timeout: this.commandTimeoutMs,
      } as QueryConfig);
      client.release();
      return rows as Record<string, unknown>[];
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw storeErrorOf(error, id);
    } finally {
      unguard();
    }
  }

  /** A pooled connection within `commandTimeoutMs`; one that arrives after the call gave up goes straight back. */
  async checkOut(id: RecordId): Promise<PoolClient> {
    const connecting = this.pool.connect();
    return this.bounded(id, connecting).catch((error: unknown) => {
      connecting.then((late) => late.release()).catch(() => undefined);
      throw error;
    });
  }

  /** Settles with `promise`, or fails with `IDEMPOTENCY_STORE_UNAVAILABLE` after `commandTimeoutMs`. */
  bounded<T>(id: RecordId, promise: Promise<T>): Promise<T> {
    const timeout = () => new Error(`PostgreSQL did not answer within ${this.commandTimeoutMs} ms`);
    return this.deadlines.bound(
      promise,
      this.commandTimeoutMs,
      () => storeErrorOf(timeout(), id),
      (error) => storeErrorOf(error, id),
    );
  }
}
