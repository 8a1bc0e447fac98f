import { Inject, Injectable, type InjectionToken, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { IdempotencyCoordinator } from '../coordinator.js';
import { InvalidIdempotencyOptionsError } from '../errors.js';
import {
  makeIdempotentInOneStatement,
  makeIdempotentInTransaction,
  makeIdempotentOptimistically,
  makeIdempotentWithOutcome,
  type IdempotencyContext,
} from '../idempotent-function.js';
import type { CoordinatedResult } from '../options.js';
import type { SqlTransaction, TransactionRunner } from '../transactional.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import type { RecordedStatement } from '../one-statement.js';
import type {
  IdempotentMethodOptions,
  IdempotentSettingsProvider,
} from './interfaces/idempotent-method-options.interface.js';
import { IDEMPOTENCY_CONTEXT_ARG, IDEMPOTENT_METHOD } from './idempotent-method.decorator.js';

type AnyArgs = never[];
type Method = (...args: unknown[]) => Promise<unknown>;

/** The result of each call of an `@IdempotentMethod()`, by the promise its caller holds. */
const outcomes = new WeakMap<Promise<unknown>, Promise<CoordinatedResult<unknown>>>();

/**
 * How a call of an `@IdempotentMethod()` went: its value and whether it was `executed`, `replayed` (the stored
 * result of an earlier call) or `unprotected` (the store down under fail-open, `enabled: false`, a `run`-mode
 * duplicate), with the fencing token of the owner that produced it.
 *
 * @throws TypeError for a promise that no `@IdempotentMethod()` returned.
 */
export function outcomeOf<T>(call: Promise<T>): Promise<CoordinatedResult<T>> {
  const result = outcomes.get(call);
  if (result === undefined) {
    throw new TypeError('outcomeOf: this promise is not a call of an @IdempotentMethod()');
  }
  // The caller takes the call's failure from the result: the value's own rejection, the same error, is handled
  // here, or it would be reported as unhandled (and end the process).
  call.catch(() => {});
  return result as Promise<CoordinatedResult<T>>;
}

/**
 * Puts every `@IdempotentMethod()` of the app's providers behind the coordinator when the module starts: the
 * method on each instance is replaced by one built with `makeIdempotentWithOutcome` (or its transactional or
 * optimistic form), bound to the instance. Providers of any module are found (the module is global), singletons
 * only: a request- or transient-scoped provider has no instance to replace at start-up, so it is refused. A
 * module registered with `explore: false` wraps nothing: only one module of an app may put the methods behind its
 * coordinator (with two, the last one to start would win).
 */
@Injectable()
export class IdempotentMethods implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly coordinator: IdempotencyCoordinator,
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions,
  ) {}

  onModuleInit(): void {
    if (this.options.explore === false) return;
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const { instance, metatype } = wrapper;
      if (typeof metatype !== 'function' || instance === null || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[name];
        if (typeof method !== 'function') continue;
        const options = this.reflector.get<IdempotentMethodOptions<AnyArgs> | undefined>(
          IDEMPOTENT_METHOD,
          method,
        );
        if (options === undefined) continue;
        if (!wrapper.isDependencyTreeStatic()) {
          throw new TypeError(
            `@IdempotentMethod() on ${metatype.name}.${name}: the provider is request- or transient-scoped; ` +
              'make it a singleton (the default scope)',
          );
        }
        const contextIndex = Reflect.getMetadata(IDEMPOTENCY_CONTEXT_ARG, prototype, name) as
          number | undefined;
        (instance as Record<string, unknown>)[name] = this.wrap(
          `${metatype.name}.${name}`,
          instance,
          method as Method,
          options,
          contextIndex,
        );
      }
    }
  }

  private wrap(
    label: string,
    instance: object,
    method: Method,
    options: IdempotentMethodOptions<AnyArgs>,
    contextIndex: number | undefined,
  ): Method {
    // The method as the coordinator's action: the context goes where @IdempotencyContextArg() says.
    const action = (context: IdempotencyContext, ...args: unknown[]) => {
      const withContext = [...args];
      if (contextIndex !== undefined) withContext[contextIndex] = context;
      return method.apply(instance, withContext);
    };
    const settings = this.settingsOf(options);
    const functionOptions = { ...options, ...(settings === undefined ? {} : { settings }) };
    const call = this.formOf(label, action, options, functionOptions);
    return (...args: unknown[]) => {
      const result = call(...args);
      const value = result.then((settled) => settled.value);
      outcomes.set(value, result);
      return value;
    };
  }

  /** The function form the options ask for: plain, in the caller's transaction, optimistic, or in one statement. */
  private formOf(
    label: string,
    action: (context: IdempotencyContext, ...args: unknown[]) => Promise<unknown>,
    options: IdempotentMethodOptions<AnyArgs>,
    functionOptions: IdempotentMethodOptions<AnyArgs>,
  ): (...args: unknown[]) => Promise<CoordinatedResult<unknown>> {
    const { transaction, runInTransaction, inOneStatement } = options;
    if (transaction !== undefined && runInTransaction !== undefined) {
      throw new InvalidIdempotencyOptionsError(
        `@IdempotentMethod() on ${label}: give transaction (the caller's open transaction) or runInTransaction ` +
          '(the method runs in transactions of its own), not both',
      );
    }
    if (inOneStatement !== undefined && runInTransaction === undefined) {
      throw new InvalidIdempotencyOptionsError(
        `@IdempotentMethod() on ${label}: inOneStatement needs runInTransaction (the claim path's transactions)`,
      );
    }
    const made =
      inOneStatement !== undefined
        ? makeIdempotentInOneStatement(this.coordinator, declaredWrite(label, action), {
            ...functionOptions,
            executor: this.executorOf(label, inOneStatement),
            runInTransaction: this.runnerOf(label, runInTransaction!),
          })
        : runInTransaction !== undefined
          ? makeIdempotentOptimistically(this.coordinator, action, {
              ...functionOptions,
              runInTransaction: this.runnerOf(label, runInTransaction),
            })
          : transaction !== undefined
            ? makeIdempotentInTransaction(this.coordinator, action, { ...functionOptions, transaction })
            : makeIdempotentWithOutcome(this.coordinator, action, functionOptions);
    return made as (...args: unknown[]) => Promise<CoordinatedResult<unknown>>;
  }

  /** The {@link TransactionRunner} a `runInTransaction` token names, anywhere in the app (like `settingsProvider`). */
  private runnerOf(label: string, token: InjectionToken): TransactionRunner<SqlTransaction> {
    return this.resolved(label, 'runInTransaction', token, 'a TransactionRunner (a function)', isFunction);
  }

  /** The pool an `inOneStatement` token names (an object with `query`), anywhere in the app. */
  private executorOf(label: string, token: InjectionToken): SqlTransaction {
    return this.resolved(label, 'inOneStatement', token, 'a pool (an object with query)', hasQuery);
  }

  /** What `token` (the value of the method's `option`) names anywhere in the app, refused unless `accepts` it. */
  private resolved<V>(
    label: string,
    option: string,
    token: InjectionToken,
    expected: string,
    accepts: (value: unknown) => boolean,
  ): V {
    let value: unknown;
    try {
      value = this.moduleRef.get(token, { strict: false });
    } catch {
      value = undefined;
    }
    if (!accepts(value)) {
      throw new InvalidIdempotencyOptionsError(
        `@IdempotentMethod() on ${label}: ${option} ${describeToken(token)} must resolve to ${expected}, ` +
          `got ${value === undefined ? 'nothing' : typeof value}`,
      );
    }
    return value as V;
  }

  private settingsOf(
    options: IdempotentMethodOptions<AnyArgs>,
  ): IdempotentMethodOptions<AnyArgs>['settings'] | undefined {
    if (options.settingsProvider === undefined) return options.settings;
    const provider = this.moduleRef.get<IdempotentSettingsProvider<AnyArgs>>(options.settingsProvider, {
      strict: false,
    });
    return (...args) => provider.idempotencySettings(...args);
  }
}

const isFunction = (value: unknown): boolean => typeof value === 'function';
const hasQuery = (value: unknown): boolean =>
  typeof (value as Partial<SqlTransaction> | null)?.query === 'function';

/** A token as an error message names it: a class or function by its name, a symbol or string as it prints. */
function describeToken(token: InjectionToken): string {
  return typeof token === 'function' ? token.name : String(token);
}

/**
 * The method of an `inOneStatement` form as the library's statement action: called with a context whose `write`
 * takes its statement; a call that declared none (or two) is a mistake of the method's, refused before any write.
 */
function declaredWrite(
  label: string,
  action: (context: IdempotencyContext, ...args: unknown[]) => Promise<unknown>,
) {
  return async (context: IdempotencyContext, ...args: unknown[]) => {
    const declared: RecordedStatement[] = [];
    const value = await action(
      { ...context, write: (statement: RecordedStatement) => declared.push(statement) } as IdempotencyContext,
      ...args,
    );
    if (declared.length !== 1) {
      throw new InvalidIdempotencyOptionsError(
        `@IdempotentMethod() on ${label}: an inOneStatement method declares its write with context.write() ` +
          `exactly once per call, got ${declared.length}`,
      );
    }
    return { value, statement: declared[0]! };
  };
}
