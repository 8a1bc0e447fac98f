import type { CoordinatorOptions } from '../../options.js';
import type { IdempotencyStore } from '../../store.js';
import type { IdempotencyProblemOverrides } from '../problem.js';

/** What the module needs: a store (e.g. `new RedisIdempotencyStore(redis)`) and the coordinator's options. */
export interface IdempotencyModuleOptions {
  store: IdempotencyStore & { close?: () => Promise<void> };
  coordinator?: CoordinatorOptions;
  /**
   * Close the store (its subscriber connection, not your Redis client) on application shutdown.
   * @default true
   */
  closeStoreOnShutdown?: boolean;
  /** How long an `@Idempotent()` route's response is replayed, unless the route says. @default 24 hours */
  ttlMs?: number;
  /** Response headers an `@Idempotent()` route stores and replays, unless the route says. @default ['Location'] */
  replayHeaders?: readonly string[];
  /** Per-code overrides of the problems `@Idempotent()` routes send. */
  problems?: IdempotencyProblemOverrides;
}

/** A provider that builds the options, for `forRootAsync({ useClass })` or `forRootAsync({ useExisting })`. */
export interface IdempotencyOptionsFactory {
  createIdempotencyOptions(): IdempotencyModuleOptions | Promise<IdempotencyModuleOptions>;
}

/** Options of the module definition itself (not of the coordinator). */
export interface IdempotencyModuleExtras {
  /**
   * Register the module globally, so every module can inject the coordinator without importing it.
   * @default false
   */
  isGlobal?: boolean;
}
