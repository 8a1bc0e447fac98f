import type { Codec } from './codecs.js';
import type { IdempotencyCoordinator } from './coordinator.js';
import type { Duration } from './duration.js';
import { InvalidIdempotencyOptionsError } from './errors.js';
import {
  assertFunction,
  checkOptions,
  contextOf,
  describeValue,
  requestFor,
} from './idempotent-function-call.js';
import type { ActionContext, CoordinatedResult, InFlightMode, StoreUnavailablePolicy } from './options.js';
import type { StatementWrite } from './one-statement.js';
import type { SqlTransaction, TransactionRunner } from './transactional.js';

/** What the action of an idempotent function receives: the coordinator's context, and the call it protects. */
export interface IdempotencyContext extends ActionContext {
  /** The operation (the key's scope) this call ran under, as `options.operation` gave it. */
  readonly operation: string;
  /** The idempotency key of this call, as `options.key` gave it. */
  readonly key: string;
}

/**
 * The settings of one call of an idempotent function, from `options.settings`: each overrides the function's
 * (`ttl`) or the coordinator's option of the same name for that call only; an absent one keeps it.
 */
export interface IdempotentCallSettings {
  /**
   * `false`: the function runs unprotected, without touching the store (see `CoordinateRequest.enabled`).
   * @default true
   */
  enabled?: boolean;
  /** @default the function's `ttl` */
  ttl?: Duration;
  /** @default the coordinator's `inFlight` */
  inFlight?: InFlightMode;
  /** @default the coordinator's `leaseMs` */
  leaseMs?: number;
  /** @default the coordinator's `renewLease` */
  renewLease?: boolean;
  /** @default the coordinator's `waitTimeoutMs` */
  waitTimeoutMs?: number;
  /** @default the coordinator's `onStoreUnavailable` */
  onStoreUnavailable?: StoreUnavailablePolicy;
  /** @default the coordinator's `maxLeaseHoldMs` */
  maxLeaseHoldMs?: number;
}

/** How {@link makeIdempotent} finds a call's operation, key and settings in the function's arguments. */
export interface IdempotentFunctionOptions<Args extends readonly unknown[], T> {
  /**
   * The key's scope, e.g. `payment.charge`, or a function of the arguments (e.g. per tenant). A string is checked
   * when the function is made; what a function returns is checked per call (`InvalidIdempotencyKeyError`).
   */
  operation: string | ((...args: Args) => string);
  /** The idempotency key of a call; a non-string is `InvalidIdempotencyKeyError` and the action does not run. */
  key: (...args: Args) => string;
  /**
   * Exact lifetime of a stored result: 1 s to 30 days.
   * @default IDEMPOTENCY_DEFAULTS.ttlMs (24 hours)
   */
  ttl?: Duration;
  /**
   * How the result is stored and replayed.
   * @default jsonCodec<T>()
   */
  codec?: Codec<T>;
  /**
   * The parameters that must match for a key to be replayed, hashed with `fingerprintOf`: the same key with
   * another value is refused with `IDEMPOTENCY_KEY_REUSE`. It throws a `TypeError` for values `fingerprintOf`
   * cannot encode.
   * @default none: '' (the parameters are not compared)
   */
  fingerprint?: NoInfer<(...args: Args) => unknown>;
  /**
   * The settings of each call, read on every call (so settings that change at run time apply to the next call):
   * the off switch, TTL, in-flight mode, lease, store-down policy, how long to wait.
   * @default none: the function's `ttl` and the coordinator's options
   */
  // NoInfer here and on `fingerprint`: `settings: () => flags` takes no argument, and would otherwise make
  // TypeScript infer a function of none from it before it reads the action's parameters.
  settings?: NoInfer<(...args: Args) => IdempotentCallSettings>;
}

/** {@link IdempotentFunctionOptions} plus where the caller's open transaction is among the arguments. */
export interface TransactionalIdempotentFunctionOptions<
  Args extends readonly unknown[],
  T,
  Tx extends SqlTransaction,
> extends IdempotentFunctionOptions<Args, T> {
  /**
   * The caller's open transaction for a call: a node-postgres `Client`/`PoolClient`, or `kyselyTransaction(trx)`
   * (`@retry-safe/idempotency/postgres`). The record is claimed and completed in it.
   */
  // NoInfer: `transaction: () => currentTransaction()` takes no argument (see `settings`).
  transaction: NoInfer<(...args: Args) => Tx>;
}

/** {@link IdempotentFunctionOptions} plus how to run a transaction: the optimistic form begins its own. */
export interface OptimisticIdempotentFunctionOptions<
  Args extends readonly unknown[],
  T,
  Tx extends SqlTransaction,
> extends IdempotentFunctionOptions<Args, T> {
  /**
   * Runs `work` in a new transaction (BEGIN, `work`, COMMIT; ROLLBACK when it throws), e.g.
   * `(work) => withTransaction(pool, work)` on a node-postgres pool. The action's writes and the record go in it.
   */
  runInTransaction: TransactionRunner<Tx>;
}

/**
 * Like {@link makeIdempotent}, and each call tells how its value was obtained (`executed`, `replayed`,
 * `unprotected`) and the fencing token of the owner that produced it.
 *
 * @throws InvalidIdempotencyOptionsError at once, naming the option, for options that are not valid.
 */
export function makeIdempotentWithOutcome<Args extends unknown[], T>(
  coordinator: IdempotencyCoordinator,
  action: (context: IdempotencyContext, ...args: Args) => Promise<T>,
  options: IdempotentFunctionOptions<Args, T>,
): (...args: Args) => Promise<CoordinatedResult<T>> {
  const checked = checkOptions(coordinator, action, options);
  return async (...args) => {
    const request = requestFor(checked, args);
    return coordinator.coordinateWithOutcome(request, (context) =>
      action(contextOf(context, request), ...args),
    );
  };
}

/**
 * Makes any async function idempotent (the shape of Powertools' `makeIdempotent`): each call finds its operation,
 * key, fingerprint and settings in its arguments and goes through `coordinator.coordinate`, so a repeat of a key
 * gets the first call's stored result instead of running `action` again. The settings are read on every call.
 *
 * TypeScript takes the function's parameters from the action's (annotate them after the context) and from `key`
 * and `operation`; `settings`, `fingerprint` and `transaction` never narrow them, so `settings: () => flags` is
 * fine. A `key` or `operation` function of no parameter needs the action's context annotated too.
 *
 * @param action - gets its {@link IdempotencyContext} (operation, key, fencing token, a signal that aborts when
 *   the lease is lost, whether it runs protected), then the function's arguments.
 * @returns a function of the same arguments. Its calls reject with the errors of `coordinate`, and with
 *   `InvalidIdempotencyKeyError` when `key` returns a non-string (or `operation` a bad operation), before
 *   anything touches the store; what `action` or an option's function throws is rethrown unchanged.
 * @throws InvalidIdempotencyOptionsError at once, naming the option, when the operation string is not a valid
 *   operation, `ttl` is not a Duration of 1 s to 30 days, `key`, `operation`, `fingerprint`, `settings` or the
 *   action is not a function, or `codec` has no `encode`/`decode`.
 * @example
 * ```ts
 * const charge = makeIdempotent(
 *   coordinator,
 *   async ({ key, fencingToken, signal }, command: ChargeCommand) => provider.charge(command, { key, signal }),
 *   {
 *     operation: (command) => `payment.charge.${command.tenant}`,
 *     key: (command) => command.requestId,
 *     fingerprint: ({ amount, currency }) => ({ amount, currency }),
 *     settings: () => ({ enabled: flags.idempotency, inFlight: flags.inFlight }),
 *   },
 * );
 * await charge(command); // runs once per tenant and requestId; a retry gets the stored charge
 * ```
 */
export function makeIdempotent<Args extends unknown[], T>(
  coordinator: IdempotencyCoordinator,
  action: (context: IdempotencyContext, ...args: Args) => Promise<T>,
  options: IdempotentFunctionOptions<Args, T>,
): (...args: Args) => Promise<T> {
  const run = makeIdempotentWithOutcome(coordinator, action, options);
  return async (...args) => (await run(...args)).value;
}

/**
 * The transactional form of {@link makeIdempotentWithOutcome}: each call goes through
 * `coordinator.coordinateInTransactionWithOutcome` on the transaction `options.transaction` finds in its
 * arguments, so the record commits or rolls back with the action's writes (which must go through that
 * transaction). The caller begins and commits or rolls back; a replay runs nothing and writes nothing. Needs a
 * store that keeps records in transactions (the Postgres store). `context.transaction` is the one `transaction`
 * returned, typed `SqlTransaction` unless the action's context is annotated with its own type (`Tx`).
 *
 * @returns a function of the same arguments; its calls reject as `coordinateInTransactionWithOutcome` does, and
 *   with `InvalidIdempotencyOptionsError` when `transaction` returns no transaction (an object with `query`).
 * @throws InvalidIdempotencyOptionsError at once, as {@link makeIdempotent}, and when `transaction` is not a
 *   function.
 * @example
 * ```ts
 * const place = makeIdempotentInTransaction(
 *   coordinator,
 *   async ({ transaction }, client: pg.PoolClient, order: NewOrder) =>
 *     (await transaction.query('INSERT INTO orders (sku) VALUES ($1) RETURNING id', [order.sku])).rows[0],
 *   { operation: 'orders.place', key: (_client, order) => order.requestId, transaction: (client) => client },
 * );
 * await withTransaction(pool, (client) => place(client, order));
 * // Kysely: transaction: (trx) => kyselyTransaction(trx), then db.transaction().execute((trx) => place(trx, order))
 * ```
 */
export function makeIdempotentInTransaction<Args extends unknown[], T, Tx extends SqlTransaction>(
  coordinator: IdempotencyCoordinator,
  action: (context: IdempotencyContext & { readonly transaction: Tx }, ...args: Args) => Promise<T>,
  options: TransactionalIdempotentFunctionOptions<Args, T, Tx>,
): (...args: Args) => Promise<CoordinatedResult<T>> {
  const checked = checkOptions(coordinator, action, options);
  const transactionOf = options.transaction;
  assertFunction('transaction', transactionOf);
  return async (...args) => {
    const request = requestFor(checked, args);
    const transaction = transactionOf(...args);
    if (typeof (transaction as Partial<SqlTransaction> | null)?.query !== 'function') {
      throw new InvalidIdempotencyOptionsError(
        "transaction must return the caller's open transaction (an object with query), " +
          `got ${describeValue(transaction)}`,
        { operation: request.operation, key: request.key },
      );
    }
    return coordinator.coordinateInTransactionWithOutcome(transaction, request, (context) =>
      action(contextOf(context, request, { transaction: context.transaction }), ...args),
    );
  };
}

/**
 * The optimistic form of {@link makeIdempotentInTransaction}, for keys that are usually fresh: each call goes
 * through `coordinator.coordinateOptimisticallyWithOutcome` in transactions of `options.runInTransaction`, the
 * action first, then the completed record in one statement; a key with a record goes through the claim in a
 * second transaction (a replay, a refusal, or the action run again), and so does a first transaction that failed
 * in the database. The action may therefore run twice, once rolled back: it must write only through
 * `context.transaction`. Needs a store that keeps records in transactions (the Postgres store).
 *
 * @returns a function of the same arguments; its calls reject as `coordinateOptimisticallyWithOutcome` does.
 * @throws InvalidIdempotencyOptionsError at once, as {@link makeIdempotent}, and when `runInTransaction` is not a
 *   function.
 * @example
 * ```ts
 * const place = makeIdempotentOptimistically(
 *   coordinator,
 *   async ({ transaction }, order: NewOrder) =>
 *     (await transaction.query('INSERT INTO orders (sku) VALUES ($1) RETURNING id', [order.sku])).rows[0],
 *   { operation: 'orders.place', key: (order) => order.requestId, runInTransaction: (work) => withTransaction(pool, work) },
 * );
 * await place(order); // one transaction for a fresh key: the order's row and its completed record
 * ```
 */
export function makeIdempotentOptimistically<Args extends unknown[], T, Tx extends SqlTransaction>(
  coordinator: IdempotencyCoordinator,
  action: (context: IdempotencyContext & { readonly transaction: Tx }, ...args: Args) => Promise<T>,
  options: OptimisticIdempotentFunctionOptions<Args, T, Tx>,
): (...args: Args) => Promise<CoordinatedResult<T>> {
  const checked = checkOptions(coordinator, action, options);
  const runInTransaction = options.runInTransaction;
  assertFunction('runInTransaction', runInTransaction);
  return async (...args) => {
    const request = requestFor(checked, args);
    return coordinator.coordinateOptimisticallyWithOutcome(runInTransaction, request, (context) =>
      action(contextOf(context, request, { transaction: context.transaction }), ...args),
    );
  };
}

/** {@link OptimisticIdempotentFunctionOptions} plus where a fresh key's one statement runs. */
export interface OneStatementIdempotentFunctionOptions<
  Args extends readonly unknown[],
  T,
  Tx extends SqlTransaction,
> extends OptimisticIdempotentFunctionOptions<Args, T, Tx> {
  /** Runs a fresh key's statement, autocommitted: a node-postgres `Pool`. */
  executor: SqlTransaction;
}

/**
 * The one-statement form of {@link makeIdempotentOptimistically}: the action writes nothing itself, it answers its
 * value and its write as common table expressions that write only through `idempotency_record`
 * ({@link StatementWrite}); each call goes through `coordinator.coordinateInOneStatementWithOutcome`, so a fresh
 * key's write and its completed record are one autocommitted statement on `options.executor`. A key with a record
 * goes through the claim in a transaction of `options.runInTransaction`, where the action is asked again. Needs
 * the Postgres store.
 *
 * @throws InvalidIdempotencyOptionsError at once, as {@link makeIdempotentOptimistically}, and when `executor` has no
 *   `query`.
 */
export function makeIdempotentInOneStatement<Args extends unknown[], T, Tx extends SqlTransaction>(
  coordinator: IdempotencyCoordinator,
  action: (context: IdempotencyContext, ...args: Args) => Promise<StatementWrite<T>>,
  options: OneStatementIdempotentFunctionOptions<Args, T, Tx>,
): (...args: Args) => Promise<CoordinatedResult<T>> {
  const checked = checkOptions(coordinator, action, options);
  const { runInTransaction, executor } = options;
  assertFunction('runInTransaction', runInTransaction);
  if (typeof (executor as Partial<SqlTransaction> | null)?.query !== 'function') {
    throw new InvalidIdempotencyOptionsError(
      `executor must be a pool to run statements on (an object with query), got ${describeValue(executor)}`,
    );
  }
  return async (...args) => {
    const request = requestFor(checked, args);
    return coordinator.coordinateInOneStatementWithOutcome(executor, runInTransaction, request, (context) =>
      action(contextOf(context, request), ...args),
    );
  };
}
