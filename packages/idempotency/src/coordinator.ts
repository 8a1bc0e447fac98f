import { assertValidSettings, prepareCall, type Call, type Settings } from './call.js';
import {
  publishClaimed,
  publishInProgress,
  publishKeyReused,
  publishReplayed,
  publishStoreUnavailable,
  StorePhase,
} from './channels.js';
import {
  IdempotencyCorruptRecordError,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  InvalidIdempotencyOptionsError,
} from './errors.js';
import { IDEMPOTENCY_DEFAULTS } from './limits.js';
import {
  CoordinateOutcome,
  IdempotencyEventType,
  InFlightMode,
  type ActionContext,
  type CoordinatedResult,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyEvent,
} from './options.js';
import { ClaimStatus, type ClaimResult, type IdempotencyStore } from './store.js';
import {
  coordinateInTransaction,
  coordinateOptimistically,
  isTransactionalStore,
  type SqlTransaction,
  type TransactionalAction,
  type TransactionalHooks,
  type TransactionalIdempotencyStore,
  type TransactionRunner,
} from './transactional.js';
import {
  claimedStatementQuery,
  coordinateInOneStatement,
  sendStatement,
  isOneStatementStore,
  type StatementAction,
} from './one-statement.js';
import { runAsOwner, unencodableError, type IdempotentAction } from './owner-run.js';
import { activeSpan } from './otel.js';
import type { IdempotencyTracer } from './tracer.js';
import { spanEvent, traceCoordinate } from './tracing.js';
import { runDisabled, runUnprotected, storeUnavailable, unprotectedContext } from './unprotected-run.js';
import { InFlightWait } from './waiting.js';

export type { IdempotentAction } from './owner-run.js';

const OUTCOME_EVENTS: ReadonlySet<string> = new Set([
  IdempotencyEventType.Hit,
  IdempotencyEventType.Miss,
  IdempotencyEventType.KeyReuse,
]);

/** A claim that found something other than a live reservation of another owner. */
type SettledClaim = Exclude<ClaimResult, { status: typeof ClaimStatus.InProgress }>;

/** One of the transactional flows of transactional.ts, bound to its transaction (or its transaction runner). */
type TransactionalFlow<T, A> = (
  store: TransactionalIdempotencyStore,
  call: Call<T>,
  action: A,
  hooks: TransactionalHooks<T>,
) => Promise<CoordinatedResult<T>>;

/**
 * Runs an action at most once per operation and key, and replays its stored result to every repeat.
 *
 * Reserve -> act -> save: one atomic claim either reserves the key (owner token, fencing token, lease) or answers
 * with what is there (the result, "in progress", another fingerprint). The owner runs the action while renewing
 * its lease, then completes the record with the exact TTL, or releases it if the action failed (failures are not
 * stored, so a retry runs the action again). Every write after the claim is owner-checked.
 */
export class IdempotencyCoordinator {
  private readonly settings: Settings;
  private readonly onEvent: ((event: IdempotencyEvent) => void) | undefined;
  private readonly tracer: IdempotencyTracer | undefined;

  constructor(
    private readonly store: IdempotencyStore,
    options: CoordinatorOptions = {},
  ) {
    const leaseMs = options.leaseMs ?? IDEMPOTENCY_DEFAULTS.leaseMs;
    this.settings = {
      inFlight: options.inFlight ?? IDEMPOTENCY_DEFAULTS.inFlight,
      leaseMs,
      renewLease: options.renewLease ?? IDEMPOTENCY_DEFAULTS.renewLease,
      maxLeaseHoldMs: options.maxLeaseHoldMs,
      waitTimeoutMs: options.waitTimeoutMs ?? leaseMs,
      onStoreUnavailable: options.onStoreUnavailable ?? IDEMPOTENCY_DEFAULTS.onStoreUnavailable,
    };
    this.onEvent = options.onEvent;
    this.tracer = options.tracer;
    assertValidSettings(this.settings);
  }

  /**
   * Runs `action` once for `request.operation` + `request.key` and returns its result; repeats get the stored
   * result. See {@link coordinateWithOutcome} to learn whether the value was replayed. With `request.enabled`
   * false the action runs at once, unprotected, and the store is not touched.
   *
   * @throws InvalidIdempotencyKeyError before touching the store, for a bad key or operation.
   * @throws InvalidIdempotencyOptionsError before touching the store, for a bad TTL or per-call option.
   * @throws IdempotencyKeyReuseError when the key was used with another fingerprint.
   * @throws IdempotencyInProgressError in raise mode, or when waiting timed out.
   * @throws IdempotencyStoreUnavailableError when fail-closed and the store failed before the action.
   * @throws IdempotencyLeaseLostError when the lease was lost while the action ran (refused, or not renewed by
   * the owner's local lease deadline).
   * @throws IdempotencyCorruptRecordError when the stored record cannot be decoded.
   * @throws IdempotencyUnencodableResultError when the action succeeded but its value cannot be encoded (and to
   * every repeat within the TTL: the action does not run again).
   * Errors thrown by the action are rethrown unchanged, after the reservation was released.
   */
  async coordinate<T>(request: CoordinateRequest<T>, action: IdempotentAction<T>): Promise<T> {
    return (await this.coordinateWithOutcome(request, action)).value;
  }

  /**
   * Like {@link coordinate}, and tells how the value was obtained (executed, replayed, unprotected: a run without
   * a reservation, e.g. `enabled: false`, fail-open, or a `run`-mode duplicate).
   */
  coordinateWithOutcome<T>(
    request: CoordinateRequest<T>,
    action: IdempotentAction<T>,
  ): Promise<CoordinatedResult<T>> {
    // `?.`: a missing request still rejects (in prepareCall) rather than throwing before a promise exists.
    if (request?.enabled === false) {
      return runDisabled(request, this.settings, () => action(unprotectedContext()));
    }
    if (this.tracer === undefined) return this.claimAndSettle(request, action);
    return traceCoordinate(this.tracer, request, false, action, (traced) =>
      this.claimAndSettle(request, traced),
    );
  }

  private async claimAndSettle<T>(
    request: CoordinateRequest<T>,
    action: IdempotentAction<T>,
  ): Promise<CoordinatedResult<T>> {
    const call = prepareCall(request, this.settings);
    // Only a call that finds the key in progress in wait mode needs one (not made per call: it is the rare case).
    let wait: InFlightWait | undefined;
    let seenInProgress = false;
    try {
      for (;;) {
        // Taken before the claim: the lease Redis grants cannot end earlier than this plus leaseMs.
        const claimSentAt = Date.now();
        let claim: ClaimResult;
        try {
          claim = await this.store.claim(call.claim);
        } catch (error) {
          return await storeUnavailable(this.store, call, action, error, (type) => this.emit(type, call));
        }
        if (claim.status !== ClaimStatus.InProgress) {
          return await this.settle(call, action, claim, claimSentAt, seenInProgress);
        }
        if (!seenInProgress) {
          this.emit(IdempotencyEventType.InProgress, call);
          publishInProgress(call, false, claim.retryAfterMs, call.settings.inFlight);
        }
        seenInProgress = true;
        if (call.settings.inFlight === InFlightMode.Raise) {
          throw new IdempotencyInProgressError(claim.retryAfterMs, call);
        }
        if (call.settings.inFlight === InFlightMode.Run) {
          return await runUnprotected(this.store, call, action, (type) => this.emit(type, call));
        }
        wait ??= new InFlightWait(this.store, call, () => {
          this.emit(IdempotencyEventType.StoreError, call);
          publishStoreUnavailable(call, false, StorePhase.Watch);
        });
        await wait.next(claim.retryAfterMs);
      }
    } finally {
      wait?.stop();
    }
  }

  /**
   * Runs `action` once for the key inside the caller's open transaction: the claim, the action's writes and the
   * completion commit or roll back together (see transactional.ts). Needs a store that supports it (the Postgres
   * store). The caller begins and commits or rolls back; a replay runs no action and writes nothing.
   *
   * @throws IdempotencyTransactionConflictError on a deadlock or serialization failure: roll back and retry.
   * @throws InvalidIdempotencyOptionsError when the store cannot keep records in a transaction.
   * Otherwise the errors of {@link coordinate}; errors thrown by the action are rethrown unchanged.
   */
  async coordinateInTransaction<T, Tx extends SqlTransaction>(
    transaction: Tx,
    request: CoordinateRequest<T>,
    action: TransactionalAction<T, Tx>,
  ): Promise<T> {
    return (await this.coordinateInTransactionWithOutcome(transaction, request, action)).value;
  }

  /**
   * Like {@link coordinateInTransaction}, and tells whether the value was executed or replayed (or `unprotected`
   * for `enabled: false`: the action ran on `transaction` without a record).
   */
  async coordinateInTransactionWithOutcome<T, Tx extends SqlTransaction>(
    transaction: Tx,
    request: CoordinateRequest<T>,
    action: TransactionalAction<T, Tx>,
  ): Promise<CoordinatedResult<T>> {
    return this.transactional(
      'coordinateInTransaction',
      request,
      action,
      (store, call, act, hooks) => coordinateInTransaction(store, call, transaction, act, hooks),
      () => action(unprotectedContext({ transaction })),
    );
  }

  /**
   * Like {@link coordinateInTransactionWithOutcome} for keys that are usually fresh, in transactions it runs
   * itself through `runInTransaction` (BEGIN, `work`, COMMIT; ROLLBACK when `work` throws): the action first, then
   * the completed record in one statement, so a fresh key costs one record statement instead of two. A key with a
   * record (replay, reuse, takeover), or one a concurrent transaction commits first, rolls that transaction back
   * and goes through the claim in a second one. The action may therefore run once more after being rolled back:
   * it must write only through the transaction it is given; its context has no fencing token (0) on the first run.
   * Needs a store whose transactions support it (the Postgres store); the same errors as the claim path. With
   * `enabled: false` the action runs once, in one transaction of `runInTransaction`, without a record.
   *
   * A first transaction that failed in the database (the store unavailable, a transaction conflict, any error
   * with a SQLSTATE `code`: its connection terminated, a statement timeout, a failed COMMIT) is tried once more
   * through the claim, in a new transaction. That is safe whichever way the first one ended: if it rolled back, the
   * key has no row and the claim runs the action; if its COMMIT landed and only the answer was lost, the claim
   * finds the completed record and replays it, so the action's writes are never made twice. What the second
   * transaction throws is the call's answer.
   */
  async coordinateOptimisticallyWithOutcome<T, Tx extends SqlTransaction>(
    runInTransaction: TransactionRunner<Tx>,
    request: CoordinateRequest<T>,
    action: TransactionalAction<T, Tx>,
  ): Promise<CoordinatedResult<T>> {
    return this.transactional(
      'coordinateOptimistically',
      request,
      action,
      (store, call, act, hooks) => coordinateOptimistically(store, call, runInTransaction, act, hooks),
      () => runInTransaction((transaction) => action(unprotectedContext({ transaction }))),
    );
  }

  /**
   * Like {@link coordinateOptimisticallyWithOutcome} in ONE statement: the action answers its value and its write
   * as common table expressions ({@link StatementWrite}), and a fresh key's write and completed record go in one
   * autocommitted statement on `executor` (a pool): one round trip, no transaction. A key with a record, or one a
   * concurrent statement commits first, writes nothing there and goes through the claim in a transaction of
   * `runInTransaction`, where the action is asked again and its write runs after the claim (replay, refusal or one
   * write); so does a statement that failed in the database. Needs the Postgres store. With `enabled: false` the
   * write runs once on `executor` without a record.
   */
  async coordinateInOneStatementWithOutcome<T, Tx extends SqlTransaction>(
    executor: SqlTransaction,
    runInTransaction: TransactionRunner<Tx>,
    request: CoordinateRequest<T>,
    action: StatementAction<T>,
  ): Promise<CoordinatedResult<T>> {
    const store = this.store;
    // Refused even for a disabled call, as the other transactional forms: switching it on must not break it.
    if (!isTransactionalStore(store) || !isOneStatementStore(store)) {
      throw new InvalidIdempotencyOptionsError(
        'coordinateInOneStatement needs a store that supports transactions',
      );
    }
    return this.transactional(
      'coordinateInOneStatement',
      request,
      action,
      (_store, call, act, hooks) =>
        coordinateInOneStatement(store, call, executor, runInTransaction, act, hooks),
      async () => {
        const { value, statement } = await action(unprotectedContext());
        await sendStatement(executor, claimedStatementQuery(statement, 0));
        return value;
      },
    );
  }

  /**
   * What both transactional forms share: a store that keeps records in transactions (else
   * `InvalidIdempotencyOptionsError`, naming `method`, even for a disabled call: switching it on must not break
   * it), the prepared call, the coordinator's hooks, the span; `disabled` runs the action for `enabled: false`.
   */
  private transactional<T, C extends ActionContext, R>(
    method: string,
    request: CoordinateRequest<T>,
    action: (context: C) => Promise<R>,
    flow: TransactionalFlow<T, (context: C) => Promise<R>>,
    disabled: () => Promise<T>,
  ): Promise<CoordinatedResult<T>> {
    const store = this.store;
    if (!isTransactionalStore(store)) {
      throw new InvalidIdempotencyOptionsError(`${method} needs a store that supports transactions`);
    }
    if (request.enabled === false) return runDisabled(request, this.settings, disabled);
    const run = (act: (context: C) => Promise<R>): Promise<CoordinatedResult<T>> => {
      const call = prepareCall(request, this.settings);
      return flow(store, call, act, {
        emit: (type) => this.emit(type, call),
        decode: (payload) => this.decode(call, payload),
        unencodable: (cause) => unencodableError(call, cause),
      });
    };
    return this.tracer === undefined ? run(action) : traceCoordinate(this.tracer, request, true, action, run);
  }

  /** Acts on a claim that decided the call: run as the owner, replay, or refuse. */
  private async settle<T>(
    call: Call<T>,
    action: IdempotentAction<T>,
    claim: SettledClaim,
    claimSentAt: number,
    waited: boolean,
  ): Promise<CoordinatedResult<T>> {
    switch (claim.status) {
      case ClaimStatus.Acquired:
        publishClaimed(call, false, claim.fencingToken, waited);
        return runAsOwner(this.store, call, action, claim.fencingToken, claimSentAt, (type, durationMs) =>
          this.emit(type, call, durationMs),
        );
      case ClaimStatus.Completed: {
        if (claim.payload === null) {
          this.emit(waited ? IdempotencyEventType.Waited : IdempotencyEventType.Hit, call);
          throw unencodableError(call);
        }
        // Decoded before the event: an unreadable result is a corrupt_record, not a hit.
        const value = this.decode(call, claim.payload);
        this.emit(waited ? IdempotencyEventType.Waited : IdempotencyEventType.Hit, call);
        publishReplayed(call, false, claim.fencingToken, waited);
        return { value, outcome: CoordinateOutcome.Replayed, fencingToken: claim.fencingToken };
      }
      case ClaimStatus.Mismatch:
        this.emit(IdempotencyEventType.KeyReuse, call);
        publishKeyReused(call, false, claim.state);
        throw new IdempotencyKeyReuseError(claim.storedFingerprint, call.fingerprint, call);
      case ClaimStatus.Corrupt:
        this.emit(IdempotencyEventType.CorruptRecord, call);
        throw new IdempotencyCorruptRecordError(`Corrupt idempotency record: ${claim.reason}`, call);
    }
  }

  private decode<T>(call: Call<T>, payload: string): T {
    try {
      return call.request.codec.decode(payload);
    } catch (error) {
      this.emit(IdempotencyEventType.CorruptRecord, call);
      throw new IdempotencyCorruptRecordError('Stored idempotency result cannot be decoded', {
        ...call,
        cause: error,
      });
    }
  }

  private emit(type: IdempotencyEvent['type'], call: Call<unknown>, durationMs?: number): void {
    // Hits, misses and key reuse are the span's outcome; the rest (waits, renewals, store errors) its events.
    if (this.tracer !== undefined && !OUTCOME_EVENTS.has(type)) {
      spanEvent(activeSpan(), type, durationMs ?? Date.now() - call.startedAt);
    }
    if (!this.onEvent) return;
    try {
      this.onEvent({
        type,
        operation: call.operation,
        durationMs: durationMs ?? Date.now() - call.startedAt,
      });
    } catch {
      // An observer must never change the outcome of a call.
    }
  }
}
