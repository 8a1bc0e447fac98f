import {
  LeaseLostReason,
  publishClaimed,
  publishInProgress,
  publishKeyReused,
  publishLeaseLost,
  publishReleased,
  publishReplayed,
  publishStored,
  publishStoreUnavailable,
  StorePhase,
} from './channels.js';
import { tryEncode } from './codecs.js';
import {
  IdempotencyCorruptRecordError,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  IdempotencyErrorCode,
  IdempotencyLeaseLostError,
  isIdempotencyError,
  type IdempotencyError,
} from './errors.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  InFlightMode,
  type ActionContext,
  type CoordinatedResult,
  type CoordinateRequest,
  type IdempotencyEvent,
} from './options.js';
import { ClaimStatus, type ClaimRequest, type IdempotencyStore, type RecordId } from './store.js';

/** What a query on a {@link SqlTransaction} resolves to (node-postgres' `QueryResult` has this shape). */
export interface SqlQueryResult {
  readonly rows: readonly unknown[];
  readonly rowCount?: number | null;
}

/**
 * The one thing transactional mode needs from a database driver: run a parameterised statement (`$1`, `$2`, ...)
 * on the caller's open transaction. A node-postgres `Client`/`PoolClient` is one as it is; for Kysely use
 * `kyselyTransaction(trx)` from `@retry-safe/idempotency/postgres`; docs/design.md shows the few lines for any
 * other driver.
 */
export interface SqlTransaction {
  query(text: string, values?: unknown[]): Promise<SqlQueryResult>;
}

/** What the action of `coordinateInTransaction` receives: the usual context plus the caller's transaction. */
export interface TransactionalActionContext<Tx extends SqlTransaction> extends ActionContext {
  /** The transaction the record lives in: the action's writes must go through it to commit with the record. */
  readonly transaction: Tx;
}

/** The action `coordinateInTransaction` protects. */
export type TransactionalAction<T, Tx extends SqlTransaction> = (
  context: TransactionalActionContext<Tx>,
) => Promise<T>;

/**
 * A store that can also keep its records inside the caller's transaction (the Postgres store). The bound store
 * runs the same claim/complete/release on `transaction`, so they commit or roll back with the caller's writes.
 */
export interface TransactionalIdempotencyStore extends IdempotencyStore {
  inTransaction(transaction: SqlTransaction): TransactionBoundStore;
  /** The coded error for a deadlock or serialization failure raised by the action's own statements, if it is one. */
  transactionConflict(error: unknown, id: RecordId): IdempotencyError | undefined;
}

/** Arguments of {@link TransactionBoundStore.insertCompleted}: a completed record, written in one statement. */
export interface InsertCompletedRequest extends RecordId {
  readonly owner: string;
  readonly fingerprint: string;
  /** The encoded result; `null` when the value has no encoding (as in `complete`). */
  readonly payload: string | null;
  readonly ttlMs: number;
}

/** A store's state changes on one open transaction. */
export interface TransactionBoundStore extends IdempotencyStore {
  /**
   * The optimistic path's one write: the completed record where no row for the key exists at all; waits on the
   * key's unique index while another transaction's insert of it is uncommitted. The granted fencing token, or
   * undefined when a row exists (the caller rolls back and claims).
   */
  insertCompleted(request: InsertCompletedRequest): Promise<number | undefined>;
}

/** True when `store` supports `coordinateInTransaction`. */
export function isTransactionalStore(store: IdempotencyStore): store is TransactionalIdempotencyStore {
  const candidate = store as Partial<TransactionalIdempotencyStore>;
  return typeof candidate.inTransaction === 'function' && typeof candidate.transactionConflict === 'function';
}

/** One transactional call, as the coordinator prepared it (validated key and options, fresh owner token). */
export interface TransactionalCall<T> extends RecordId {
  readonly request: CoordinateRequest<T>;
  readonly fingerprint: string;
  readonly claim: ClaimRequest;
  /** When the call started (`Date.now()`): the channels' `durationMs` counts from here. */
  readonly startedAt: number;
}

/**
 * Runs a store statement of the transactional flow: one that fails because the store is unavailable (a timeout,
 * a lost connection) is published as such before it is rethrown; conflicts and the caller's errors are not.
 */
async function storeStatement<R>(
  call: TransactionalCall<unknown>,
  phase: StorePhase,
  statement: Promise<R>,
  fencingToken?: number,
): Promise<R> {
  try {
    return await statement;
  } catch (error) {
    if (isIdempotencyError(error) && error.code === IdempotencyErrorCode.StoreUnavailable) {
      publishStoreUnavailable(call, true, phase, fencingToken === undefined ? undefined : { fencingToken });
    }
    throw error;
  }
}

/** What the coordinator lends the transactional flow: its events and its decoding (corrupt results are coded). */
export interface TransactionalHooks<T> {
  emit(type: IdempotencyEvent['type']): void;
  decode(payload: string): T;
  /** The coded error for a value that could not be encoded (now or by an earlier owner). */
  unencodable(cause?: unknown): Error;
}

/**
 * Claim -> act -> complete, all on the caller's transaction. No lease is renewed: the transaction is the lease
 * (a crashed owner's transaction rolls back and takes its claim with it, and nobody else can see the claim before
 * it commits). A concurrent duplicate's claim waits on the record's primary key until this transaction ends, then
 * replays the committed result or, after a rollback, runs. A failed action leaves the claim released, so even a
 * caller that commits after the failure does not block the key.
 */
export async function coordinateInTransaction<T, Tx extends SqlTransaction>(
  store: TransactionalIdempotencyStore,
  call: TransactionalCall<T>,
  transaction: Tx,
  action: TransactionalAction<T, Tx>,
  hooks: TransactionalHooks<T>,
): Promise<CoordinatedResult<T>> {
  const bound = store.inTransaction(transaction);
  const claim = await storeStatement(call, StorePhase.Claim, bound.claim(call.claim));
  switch (claim.status) {
    case ClaimStatus.Completed: {
      if (claim.payload === null) {
        hooks.emit(IdempotencyEventType.Hit);
        throw hooks.unencodable();
      }
      const value = hooks.decode(claim.payload);
      hooks.emit(IdempotencyEventType.Hit);
      publishReplayed(call, true, claim.fencingToken, false);
      return { value, outcome: CoordinateOutcome.Replayed, fencingToken: claim.fencingToken };
    }
    case ClaimStatus.Mismatch:
      hooks.emit(IdempotencyEventType.KeyReuse);
      publishKeyReused(call, true, claim.state);
      throw new IdempotencyKeyReuseError(claim.storedFingerprint, call.fingerprint, call);
    case ClaimStatus.Corrupt:
      hooks.emit(IdempotencyEventType.CorruptRecord);
      throw new IdempotencyCorruptRecordError(`Corrupt idempotency record: ${claim.reason}`, call);
    case ClaimStatus.InProgress:
      // Only a standalone owner's committed reservation can be seen here; waiting would hold the transaction open.
      hooks.emit(IdempotencyEventType.InProgress);
      publishInProgress(call, true, claim.retryAfterMs, InFlightMode.Raise);
      throw new IdempotencyInProgressError(claim.retryAfterMs, call);
    case ClaimStatus.Acquired:
      publishClaimed(call, true, claim.fencingToken, false);
      break;
  }

  let signal: AbortSignal | undefined;
  let value: T;
  try {
    value = await action({
      get signal() {
        return (signal ??= new AbortController().signal);
      },
      fencingToken: claim.fencingToken,
      protected: true,
      transaction,
    });
  } catch (error) {
    // Fails harmlessly when the action's error aborted the transaction: the rollback removes the claim then.
    const released = await bound.release(call.claim).catch(() => false);
    publishReleased(call, true, claim.fencingToken, released);
    throw store.transactionConflict(error, call) ?? error;
  }
  // As in standalone mode, a value the codec cannot encode is recorded as such: if the caller commits anyway,
  // the action's writes are there and must not be made again; if it rolls back, the record goes with them.
  const { payload, encodeError } = tryEncode(call.request.codec, value, store.unstorable?.bind(store));
  const completion = bound.complete({ ...call.claim, payload, ttlMs: call.request.ttlMs });
  if (!(await storeStatement(call, StorePhase.Complete, completion, claim.fencingToken))) {
    // Only possible if someone else's write in this same transaction removed or replaced the claim.
    publishLeaseLost(call, true, claim.fencingToken, LeaseLostReason.Refused);
    throw new IdempotencyLeaseLostError(value, call);
  }
  publishStored(call, true, claim.fencingToken, CoordinateOutcome.Executed, payload === null);
  hooks.emit(IdempotencyEventType.Miss);
  if (payload === null) throw hooks.unencodable(encodeError);
  return { value, outcome: CoordinateOutcome.Executed, fencingToken: claim.fencingToken };
}

/** Runs `work` in a new transaction of the caller's: commits what it returns, rolls back what it throws. */
export type TransactionRunner<Tx extends SqlTransaction> = <R>(
  work: (transaction: Tx) => Promise<R>,
) => Promise<R>;

// Thrown out of the optimistic transaction to roll it back when the key has a row: the claim decides then.
class KeyTaken extends Error {}

/** The library's verdicts that say nothing about the key: the transaction failed, the claim may decide. */
const TRANSACTION_FAILURES: ReadonlySet<string> = new Set([
  IdempotencyErrorCode.StoreUnavailable,
  IdempotencyErrorCode.TransactionConflict,
]);

/**
 * True when the optimistic transaction failed in the database (the store's statement unavailable, a conflict, or
 * any error with a 5-character SQLSTATE `code`: its connection terminated, a timeout, a failed COMMIT): it did
 * not commit, or committed and lost its answer, and the claim can tell which. Any other error (the action's own,
 * an unencodable value) is the call's answer.
 */
export function failedInDatabase(error: unknown): boolean {
  if (isIdempotencyError(error)) return TRANSACTION_FAILURES.has(error.code);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * The optimistic form of {@link coordinateInTransaction} for keys that are usually fresh (creating an order): in
 * one transaction of `runInTransaction`, the action first, then the completed record in one statement
 * (`insertCompleted`), so a fresh key costs one record statement instead of a claim and a completion. When the key
 * has a row (a replay, a reuse, a released or expired record) or a concurrent transaction of the key commits
 * first (the insert waits on the key's unique index until it ends), that transaction is rolled back, the action's
 * writes with it, and a second one runs the claim path, which replays, refuses or runs the action again. So the
 * action may run twice and be rolled back once: it must write only through the transaction. A first transaction
 * that failed in the database (see `failedInDatabase`) takes the claim path once too: it replays what that
 * transaction committed if its COMMIT did land and only its answer was lost, and runs the action otherwise.
 */
export async function coordinateOptimistically<T, Tx extends SqlTransaction>(
  store: TransactionalIdempotencyStore,
  call: TransactionalCall<T>,
  runInTransaction: TransactionRunner<Tx>,
  action: TransactionalAction<T, Tx>,
  hooks: TransactionalHooks<T>,
): Promise<CoordinatedResult<T>> {
  try {
    return await runInTransaction(async (transaction) => {
      let value: T;
      let signal: AbortSignal | undefined;
      try {
        value = await action({
          get signal() {
            return (signal ??= new AbortController().signal);
          },
          // Granted only by the record's insert, after the action: an action that passes its token on claims.
          fencingToken: 0,
          protected: true,
          transaction,
        });
      } catch (error) {
        throw store.transactionConflict(error, call) ?? error;
      }
      const { payload, encodeError } = tryEncode(call.request.codec, value, store.unstorable?.bind(store));
      const insert = store.inTransaction(transaction).insertCompleted({
        ...call,
        owner: call.claim.owner,
        payload,
        ttlMs: call.request.ttlMs,
      });
      const fencingToken = await storeStatement(call, StorePhase.Complete, insert);
      if (fencingToken === undefined) throw new KeyTaken();
      // The claim and the result in one statement: both are published at it.
      publishClaimed(call, true, fencingToken, false);
      publishStored(call, true, fencingToken, CoordinateOutcome.Executed, payload === null);
      hooks.emit(IdempotencyEventType.Miss);
      if (payload === null) throw hooks.unencodable(encodeError);
      return { value, outcome: CoordinateOutcome.Executed, fencingToken };
    });
  } catch (error) {
    if (!(error instanceof KeyTaken) && !failedInDatabase(error)) throw error;
  }
  return runInTransaction((transaction) => coordinateInTransaction(store, call, transaction, action, hooks));
}
