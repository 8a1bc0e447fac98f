import type { EncryptionOptions } from '../../encryption.js';
import type { CoordinatorOptions } from '../../options.js';
import type { IdempotencyStore } from '../../store.js';
import type { IdempotencyProblemOverrides } from '../problem.js';
import type { IdempotentOptions } from './idempotent-options.interface.js';

/**
 * What the module needs: a store (e.g. `new RedisIdempotencyStore(redis)`), the coordinator's options, and the
 * defaults of every `@Idempotent()` (`ttl`, `keyFrom`, `fingerprint`, `scope`, `replayHeaders`, `storeIf`, `maxStoredBytes`;
 * the in-flight mode is the coordinator's `inFlight`).
 */
export interface IdempotencyModuleOptions
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- module-wide defaults serve every platform's request
  extends Omit<IdempotentOptions<any>, 'operation' | 'inFlight'> {
  store: IdempotencyStore & { close?: () => Promise<void> };
  coordinator?: CoordinatorOptions;
  /**
   * Close the store on application shutdown: what the store opened itself (the Redis store's subscriber
   * connection), never the client or pool you passed in, which stay yours to close.
   * @default true
   */
  closeStoreOnShutdown?: boolean;
  /**
   * Encrypt stored responses at rest (AES-256-GCM). Keys newest first: records are written with the first and read
   * with whichever key wrote them, so a new key goes in front and an old one leaves once its records expired.
   * @default undefined (stored as JSON)
   */
  encryption?: EncryptionOptions;
  /** Per-code overrides of the problems `@Idempotent()` routes send. */
  problems?: IdempotencyProblemOverrides;
  /**
   * Put the app's `@IdempotentMethod()` methods behind this module's coordinator when it starts. Every module's
   * explorer finds every provider of the app, so with a second `IdempotencyModule` (a feature's own coordinator,
   * `isGlobal: false`, e.g. on another store) set `false` on it: only one module wraps the methods.
   * @default true
   */
  explore?: boolean;
}

/** A provider that builds the options, for `forRootAsync({ useClass })` or `forRootAsync({ useExisting })`. */
export interface IdempotencyOptionsFactory {
  createIdempotencyOptions(): IdempotencyModuleOptions | Promise<IdempotencyModuleOptions>;
}

/** Options of the module definition itself (not of the coordinator). */
export interface IdempotencyModuleExtras {
  /**
   * Register the module globally, so every module's `@Idempotent()` routes and providers reach it without
   * importing it.
   * @default true
   */
  isGlobal?: boolean;
}
