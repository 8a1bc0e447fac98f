import type { CoordinatorOptions } from '../../options.js';
import type { IdempotencyStore } from '../../store.js';

/** What the module needs: a store (e.g. `new RedisIdempotencyStore(redis)`) and the coordinator's options. */
export interface IdempotencyModuleOptions {
  store: IdempotencyStore & { close?: () => Promise<void> };
  coordinator?: CoordinatorOptions;
  /**
   * Close the store (its subscriber connection, not your Redis client) on application shutdown.
   * @default true
   */
  closeStoreOnShutdown?: boolean;
}

/** A provider that builds the options, for `registerAsync({ useClass })` or `registerAsync({ useExisting })`. */
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
