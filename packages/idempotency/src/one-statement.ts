import { publishClaimed, publishStored } from './channels.js';
import { tryEncode } from './codecs.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  type ActionContext,
  type CoordinatedResult,
} from './options.js';
import {
  coordinateInTransaction,
  failedInDatabase,
  type SqlQueryResult,
  type SqlTransaction,
  type TransactionalCall,
  type TransactionalHooks,
  type TransactionalIdempotencyStore,
  type TransactionRunner,
} from './transactional.js';

/**
 * The name under which a {@link RecordedStatement}'s expressions see the key's record: one row (`fencing_token`)
 * when this statement may write (it inserted the key's completed record, or the key's claim is this call's), no
 * row when the key already had a record.
 */
export const RECORD_CTE = 'idempotency_record';

/**
 * A write of the caller's as common table expressions, run in ONE statement with the key's completed record:
 * `WITH idempotency_record AS (<the record's insert>), <ctes> SELECT ...`. Each expression must write only through
 * the record's row (`INSERT ... SELECT ... FROM idempotency_record`, `... WHERE EXISTS (SELECT 1 FROM
 * idempotency_record)`): a key that already has a record then writes nothing, and the call goes through the claim.
 * PostgreSQL runs every data-modifying expression of a `WITH` once, whether or not the query reads it.
 */
export interface RecordedStatement {
  /** `name AS (statement)` entries, in order; none may be named {@link RECORD_CTE}. */
  readonly ctes: readonly string[];
  /** The values of `$1` .. `$n` in `ctes`; the record's parameters follow them. */
  readonly values: readonly unknown[];
  /**
   * On node-postgres (a `Pool` or a client), the statement is prepared under this name once per connection (a fresh
   * key's as `<name>`, a claimed key's as `<name>:claimed`) instead of parsed and planned on every call. One name
   * stands for one `ctes` text with one store's table. @default unnamed
   */
  readonly name?: string;
}

/** What the action of the one-statement form answers: the call's value, and the write that makes it so. */
export interface StatementWrite<T> {
  readonly value: T;
  readonly statement: RecordedStatement;
}

/**
 * The action of the one-statement form: it writes nothing itself; it answers the value and the statement, which
 * the library runs (with the record, or after the claim). It may be asked twice for one call (see
 * {@link coordinateInOneStatement}).
 */
export type StatementAction<T> = (context: ActionContext) => Promise<StatementWrite<T>>;

/** A completed record as a statement of the caller's writes it (the payload is the codec's encoding). */
export interface CompletedRecordValues {
  readonly operation: string;
  readonly key: string;
  readonly owner: string;
  readonly fingerprint: string;
  readonly payload: string;
  readonly ttlMs: number;
}

/** A store that can write a completed record inside a statement of the caller's (the Postgres store). */
export interface OneStatementStore extends TransactionalIdempotencyStore {
  /** The record's `INSERT` with parameters from `$first`, and their values (see the Postgres store). */
  insertCompletedSql(first: number, record: CompletedRecordValues): { sql: string; values: unknown[] };
}

/** True when `store` supports the one-statement form. */
export function isOneStatementStore(store: TransactionalIdempotencyStore): store is OneStatementStore {
  return typeof (store as Partial<OneStatementStore>).insertCompletedSql === 'function';
}

/** One statement as it is sent: named where the driver prepares named statements. */
export interface StatementQuery {
  readonly text: string;
  readonly values: unknown[];
  readonly name?: string;
}

/**
 * Sends `query` on `executor`: node-postgres (a `Pool` or a client, both with `connect`) takes a named statement,
 * parsed once per connection; any other driver, or an unnamed statement, gets text and values.
 */
export function sendStatement(executor: SqlTransaction, query: StatementQuery): Promise<SqlQueryResult> {
  const { name, text, values } = query;
  if (name !== undefined && typeof (executor as { connect?: unknown }).connect === 'function') {
    return (executor as unknown as { query(config: StatementQuery): Promise<SqlQueryResult> }).query({
      name,
      text,
      values,
    });
  }
  return executor.query(text, values);
}

/** `statement` with a record row that is always there (a claimed key, or no record at all): the write happens. */
export function claimedStatementQuery(statement: RecordedStatement, fencingToken: number): StatementQuery {
  const { ctes, values: own, name } = checkedStatement(statement);
  const values = [...own, fencingToken];
  return {
    text: `WITH ${RECORD_CTE} AS (SELECT $${values.length}::bigint AS fencing_token), ${ctes.join(', ')} SELECT 1`,
    values,
    ...(name === undefined ? {} : { name: `${name}:claimed` }),
  };
}

// An expression that would shadow the record's (`idempotency_record AS (...)`, quoted or not).
const NAMED_AS_RECORD = new RegExp(`^\\s*"?${RECORD_CTE}"?\\s`, 'i');

/** Refuses a statement that could not run as documented (no expression, or one named as the record). */
function checkedStatement(statement: RecordedStatement): RecordedStatement {
  if (!Array.isArray(statement?.ctes) || statement.ctes.length === 0 || !Array.isArray(statement.values)) {
    throw new TypeError('a RecordedStatement needs at least one common table expression in ctes, and values');
  }
  if (statement.ctes.some((cte) => NAMED_AS_RECORD.test(cte))) {
    throw new TypeError(`a RecordedStatement's expression may not be named ${RECORD_CTE}: the record's is`);
  }
  return statement;
}

// Thrown when the key had a row: the claim decides then.
class KeyTaken extends Error {}

/**
 * The one-statement form of `coordinateOptimistically`, for keys that are usually fresh: the action's statement and
 * the key's completed record in ONE autocommitted statement on `executor` (a pool), so a fresh key costs one round
 * trip and no transaction. When the key has a row (a replay, a reuse, a released or expired record), or a
 * concurrent statement of the key commits first (the insert waits on the key's unique index until it ends), the
 * statement writes nothing and the call goes through the claim in a transaction of `runInTransaction`, where the
 * action is asked again and its statement runs after the claim; that replays, refuses or writes once. A statement
 * that failed in the database (any SQLSTATE error: its own constraint, a timeout, a lost COMMIT answer) takes the
 * claim path once too, as the optimistic form's first transaction does. A value the codec cannot encode is refused
 * before anything is written.
 */
export async function coordinateInOneStatement<T, Tx extends SqlTransaction>(
  store: OneStatementStore,
  call: TransactionalCall<T>,
  executor: SqlTransaction,
  runInTransaction: TransactionRunner<Tx>,
  action: StatementAction<T>,
  hooks: TransactionalHooks<T>,
): Promise<CoordinatedResult<T>> {
  try {
    return await writeWithRecord(store, call, executor, action, hooks);
  } catch (error) {
    if (!(error instanceof KeyTaken) && !failedInDatabase(error)) throw error;
  }
  return runInTransaction((transaction) =>
    coordinateInTransaction(
      store,
      call,
      transaction,
      async (context) => {
        const { value, statement } = await action(context);
        await sendStatement(transaction, claimedStatementQuery(statement, context.fencingToken));
        return value;
      },
      hooks,
    ),
  );
}

async function writeWithRecord<T>(
  store: OneStatementStore,
  call: TransactionalCall<T>,
  executor: SqlTransaction,
  action: StatementAction<T>,
  hooks: TransactionalHooks<T>,
): Promise<CoordinatedResult<T>> {
  let signal: AbortSignal | undefined;
  const { value, statement } = await action({
    get signal() {
      return (signal ??= new AbortController().signal);
    },
    // Granted only by the record's insert, in the statement: an action that passes its token on claims.
    fencingToken: 0,
    protected: true,
  });
  const { ctes, values, name } = checkedStatement(statement);
  const { payload, encodeError } = tryEncode(call.request.codec, value, store.unstorable?.bind(store));
  if (payload === null) throw hooks.unencodable(encodeError);
  const record = store.insertCompletedSql(values.length + 1, {
    ...call,
    owner: call.claim.owner,
    payload,
    ttlMs: call.request.ttlMs,
  });
  const { rows } = await sendStatement(executor, {
    text: `WITH ${RECORD_CTE} AS (${record.sql}), ${ctes.join(', ')} SELECT fencing_token FROM ${RECORD_CTE}`,
    values: [...values, ...record.values],
    ...(name === undefined ? {} : { name }),
  });
  const row = rows[0] as { fencing_token?: unknown } | undefined;
  if (row === undefined) throw new KeyTaken();
  const fencingToken = Number(row.fencing_token);
  // The claim and the result in one statement: both are published at it.
  publishClaimed(call, true, fencingToken, false);
  publishStored(call, true, fencingToken, CoordinateOutcome.Executed, false);
  hooks.emit(IdempotencyEventType.Miss);
  return { value, outcome: CoordinateOutcome.Executed, fencingToken };
}
