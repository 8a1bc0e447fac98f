import {
  Inject,
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationShutdown,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { IdempotencyCoordinator } from '../coordinator.js';
import type { CoordinatorOptions } from '../options.js';
import type { IdempotencyStore } from '../store.js';
import {
  IDEMPOTENCY_COORDINATOR,
  IDEMPOTENCY_MODULE_OPTIONS,
  IDEMPOTENCY_STORE,
} from './idempotency.tokens.js';

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

/** Options of {@link IdempotencyModule.registerAsync}. */
export interface IdempotencyModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: never[]) => IdempotencyModuleOptions | Promise<IdempotencyModuleOptions>;
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** @default false */
  global?: boolean;
}

/**
 * Provides an {@link IdempotencyCoordinator} to a Nest application. It holds no business logic: services inject
 * the coordinator and call `coordinate` in their use cases; the app's exception filter maps errors with
 * `problemForIdempotencyError`.
 */
@Module({})
export class IdempotencyModule implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions) {}

  /** Registers the module with options known up front. */
  static register(options: IdempotencyModuleOptions & { global?: boolean }): DynamicModule {
    return IdempotencyModule.build(
      [{ provide: IDEMPOTENCY_MODULE_OPTIONS, useValue: options }],
      [],
      options.global,
    );
  }

  /** Registers the module with options from a factory (e.g. built from config and a Redis client). */
  static registerAsync(options: IdempotencyModuleAsyncOptions): DynamicModule {
    return IdempotencyModule.build(
      [
        {
          provide: IDEMPOTENCY_MODULE_OPTIONS,
          useFactory: options.useFactory as (...args: unknown[]) => IdempotencyModuleOptions,
          inject: options.inject ?? [],
        },
      ],
      options.imports ?? [],
      options.global,
    );
  }

  private static build(
    optionProviders: Provider[],
    imports: NonNullable<ModuleMetadata['imports']>,
    global = false,
  ): DynamicModule {
    const providers: Provider[] = [
      ...optionProviders,
      {
        provide: IDEMPOTENCY_STORE,
        useFactory: (options: IdempotencyModuleOptions) => options.store,
        inject: [IDEMPOTENCY_MODULE_OPTIONS],
      },
      {
        provide: IdempotencyCoordinator,
        useFactory: (options: IdempotencyModuleOptions) =>
          new IdempotencyCoordinator(options.store, options.coordinator),
        inject: [IDEMPOTENCY_MODULE_OPTIONS],
      },
      { provide: IDEMPOTENCY_COORDINATOR, useExisting: IdempotencyCoordinator },
    ];
    return {
      module: IdempotencyModule,
      global,
      imports,
      providers,
      exports: [IdempotencyCoordinator, IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.options.closeStoreOnShutdown ?? true) await this.options.store.close?.();
  }
}
