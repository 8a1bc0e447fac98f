import { hash } from 'node:crypto';
import type pg from 'pg';
import type { InsertCompletedRequest, SqlTransaction, TransactionBoundStore } from '../transactional.js';
import {
  ClaimStatus,
  type ClaimRequest,
  type ClaimResult,
  type CompleteRequest,
  type RecordId,
  type ReleaseRequest,
  type RenewRequest,
  type StoreIfAbsentRequest,
} from '../store.js';
import { claimResultOf, flagOf } from '../store-replies.js';
import {
  MARK_OPEN_TRANSACTION_SQL,
  PG_RECORD_FORMAT_VERSION,
  type SchemaNames,
  type StateChange,
} from './schema.js';
import { IdempotencyErrorCode } from '../errors.js';
import { guarded } from './client-guard.js';
import { isUnstorableValue, transactionStoreErrorOf } from './sql-errors.js';

/** Positional arguments of each state-change function (after them comes lock_timeout_ms). */
const ARITY: Record<StateChange, number> = {
  claim: 7,
  complete: 5,
  tx_complete: 5,
  renew: 4,
  release: 3,
  store_if_absent: 6,
  insert_completed: 7,
  sweep: 1,
};

/** Runs one state-change function and returns its single reply column(s). */
export type Runner = (change: StateChange, id: RecordId, args: unknown[]) => Promise<Record<string, unknown>>;

/** The named statement calling each state-change function. */
export type Statements = Record<StateChange, { readonly name: string; readonly text: string }>;

/** The SQL that calls each state-change function, named so each pooled connection parses it once. */
export function statementsFor(names: SchemaNames): Statements {
  const entries = (Object.keys(ARITY) as StateChange[]).map((change) => {
    const count = ARITY[change] + (change === 'sweep' ? 0 : 1);
    const params = Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ');
    // Named, so each pooled connection parses it once.
    const call = `${names.fn(change)}(${params})`;
    const text = change === 'claim' ? `SELECT code, a, b FROM ${call}` : `SELECT ${call} AS reply`;
    // Hashed: PostgreSQL cuts names at 63 bytes, and a long table name would make two changes' names one.
    return [change, { name: `idem_${hash('sha256', names.bareTable, 'hex').slice(0, 16)}_${change}`, text }];
  });
  return Object.fromEntries(entries) as Statements;
}

// The state changes, written once for both runners (standalone pool and caller's transaction).

export async function claimOn(run: Runner, r: ClaimRequest): Promise<ClaimResult> {
  const row = await run('claim', r, [
    r.operation,
    r.key,
    r.owner,
    r.fingerprint,
    r.leaseMs,
    r.retainMs,
    PG_RECORD_FORMAT_VERSION,
  ]);
  const result = claimResultOf([row['code'], row['a'], row['b']]);
  if (result.status === ClaimStatus.Acquired || result.status === ClaimStatus.Completed) {
    if (!Number.isSafeInteger(result.fencingToken)) {
      return { status: ClaimStatus.Corrupt, reason: `fencing token out of range: ${String(row['a'])}` };
    }
  }
  return result;
}

export async function completeOn(run: Runner, r: CompleteRequest): Promise<boolean> {
  const complete = async (payload: string | null) =>
    flagOf((await run('complete', r, [r.operation, r.key, r.owner, payload, r.ttlMs]))['reply']);
  try {
    return await complete(r.payload);
  } catch (error) {
    // A text the server encoding has no room for (the coordinator already refused U+0000 and lone surrogates, so
    // only a non-UTF8 database gets here): the action ran, so the record says "no storable result" rather than
    // staying pending for the action to run again. Standalone only: on a caller's transaction the refusal
    // aborted the transaction, and its error says so (IDEMPOTENCY_UNENCODABLE_RESULT, nothing committed).
    const standalone = (error as { code?: unknown }).code === IdempotencyErrorCode.StoreUnavailable;
    if (r.payload === null || !standalone || !isUnstorableValue(error)) throw error;
    return complete(null);
  }
}

export async function renewOn(run: Runner, r: RenewRequest): Promise<boolean> {
  return flagOf((await run('renew', r, [r.operation, r.key, r.owner, r.leaseMs]))['reply']);
}

export async function releaseOn(run: Runner, r: ReleaseRequest): Promise<boolean> {
  return flagOf((await run('release', r, [r.operation, r.key, r.owner]))['reply']);
}

export async function storeIfAbsentOn(run: Runner, r: StoreIfAbsentRequest): Promise<boolean> {
  const args = [r.operation, r.key, r.fingerprint, r.payload, r.ttlMs, PG_RECORD_FORMAT_VERSION];
  return flagOf((await run('store_if_absent', r, args))['reply']);
}

/** The arguments of `insert_completed`, in its order: also the parameters of the record's INSERT in a caller's CTE. */
export function insertCompletedArgs(r: InsertCompletedRequest): unknown[] {
  return [r.operation, r.key, r.owner, r.fingerprint, r.payload, r.ttlMs, PG_RECORD_FORMAT_VERSION];
}

/** The fencing token of the completed record it inserted, or undefined when a row for the key exists. */
export async function insertCompletedOn(run: Runner, r: InsertCompletedRequest): Promise<number | undefined> {
  const reply = (await run('insert_completed', r, insertCompletedArgs(r)))['reply'];
  return reply === null || reply === undefined ? undefined : Number(reply);
}

/** Every state change on `run` (for a caller's transaction: {@link transactionRunner}). */
export function storeOn(run: Runner): TransactionBoundStore {
  return {
    claim: (request) => claimOn(run, request),
    complete: (request) => completeOn(run, request),
    renew: (request) => renewOn(run, request),
    release: (request) => releaseOn(run, request),
    storeIfAbsent: (request) => storeIfAbsentOn(run, request),
    insertCompleted: (request) => insertCompletedOn(run, request),
  };
}

/**
 * Runs the state-change functions on the caller's open transaction, without a timeout of their own (the caller's
 * apply) and with `lock_timeout_ms` null.
 */
export function transactionRunner(statements: Statements, transaction: SqlTransaction): Runner {
  const prepared = isNodePostgresClient(transaction);
  const send = ({ name, text }: { name: string; text: string }, values: unknown[]) =>
    // node-postgres takes a named statement, parsed once per connection; any other driver gets text + values.
    // A node-postgres client gets an 'error' listener while our statement runs: a lost connection fails the
    // statement, not the process (see client-guard.ts).
    prepared
      ? guarded(prepared, () => prepared.query({ name, text, values }))
      : transaction.query(text, values);
  return async (change, id, args) => {
    try {
      // One statement more, so the claim can prove it runs in the same open transaction (see the claim's SQL).
      if (change === 'claim') await send({ name: 'idem:mark', text: MARK_OPEN_TRANSACTION_SQL }, []);
      // The transaction is the lease: its complete holds the row locked since the claim, expired or not.
      const { rows } = await send(statements[change === 'complete' ? 'tx_complete' : change], [
        ...args,
        null,
      ]);
      return rows[0] as Record<string, unknown>;
    } catch (error) {
      throw transactionStoreErrorOf(error, id);
    }
  };
}

/** The transaction as a node-postgres `Client`/`PoolClient` (which accepts a query config), if it is one. */
function isNodePostgresClient(transaction: SqlTransaction): pg.ClientBase | undefined {
  const candidate = transaction as Partial<pg.ClientBase> & { connectionParameters?: unknown };
  return typeof candidate.connectionParameters === 'object' ? (transaction as pg.ClientBase) : undefined;
}
