import type { InjectionToken } from '@nestjs/common';
import type {
  IdempotencyContext,
  IdempotentCallSettings,
  IdempotentFunctionOptions,
} from '../../idempotent-function.js';
import type { RecordedStatement } from '../../one-statement.js';
import type { SqlTransaction } from '../../transactional.js';

/**
 * An injectable that gives every call of an `@IdempotentMethod()` its settings (`enabled`, `inFlight`, `leaseMs`,
 * `waitTimeoutMs`, `ttl`, ...), read on every call, so settings that change while the app runs apply at once.
 */
export interface IdempotentSettingsProvider<Args extends unknown[] = never[]> {
  idempotencySettings(...args: Args): IdempotentCallSettings;
}

/**
 * Options of `@IdempotentMethod()`: where the operation, the key and the fingerprint come from among the method's
 * arguments, and its per-call settings (from its arguments, or from an injected {@link IdempotentSettingsProvider}).
 *
 * @typeParam Args - the method's arguments, as its callers pass them (without an `@IdempotencyContextArg()`).
 * @typeParam T - what the method resolves to (stored with `codec`).
 */
export interface IdempotentMethodOptions<
  Args extends unknown[] = never[],
  T = unknown,
> extends IdempotentFunctionOptions<Args, T> {
  /** The injection token of an {@link IdempotentSettingsProvider}, asked on every call (instead of `settings`). */
  readonly settingsProvider?: InjectionToken;
  /**
   * The transactional form: the caller's open transaction among the arguments (a node-postgres client, or
   * `kyselyTransaction(trx)`); the record is claimed and completed in it, so it commits or rolls back with the
   * method's own writes. Needs the PostgreSQL store. Not with `runInTransaction`.
   */
  readonly transaction?: (...args: Args) => SqlTransaction;
  /**
   * The optimistic form (`makeIdempotentOptimistically`): the injection token of a `TransactionRunner` (e.g. a
   * provider `{ provide: RUN_IN_TRANSACTION, useFactory: (pool) => (work) => withTransaction(pool, work) }`),
   * resolved from any module when the app starts. Each call runs in transactions of its own: the method first, then
   * the completed record, one transaction for a fresh key; a key with a record goes through the claim in a second
   * one, so the method may run twice, once rolled back, and must write only through the context's `transaction`
   * (`@IdempotencyContextArg()`). Needs the PostgreSQL store. Not with `transaction`.
   */
  readonly runInTransaction?: InjectionToken;
  /**
   * The one-statement form (`makeIdempotentInOneStatement`), with `runInTransaction`: the injection token of the
   * pool a fresh key's statement runs on, autocommitted. The method writes nothing itself: it declares its write with
   * `context.write(statement)` (a {@link RecordedStatement} whose expressions write only through
   * `idempotency_record`; `@IdempotencyContextArg()` typed {@link StatementContext}) and returns its value. A fresh
   * key's write and its completed record are then one statement; a key with a record goes through the claim in a
   * transaction of `runInTransaction`, where the method is called again and its write runs after the claim.
   */
  readonly inOneStatement?: InjectionToken;
}

/** The context of an `inOneStatement` method: where it declares its write (once per call). */
export interface StatementContext extends IdempotencyContext {
  write(statement: RecordedStatement): void;
}
