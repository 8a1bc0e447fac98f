import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdempotencyCoordinator } from '../coordinator.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import {
  ConfigurableIdempotencyModule,
  IDEMPOTENCY_MODULE_OPTIONS,
} from './idempotency.module-definition.js';
import { IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE } from './idempotency.tokens.js';
import { checkModuleOptions } from './idempotent-route.js';
import { IdempotentMethods } from './idempotent-methods.js';
import { IdempotentRoutes } from './idempotent-routes.js';

/**
 * Gives a Nest application its {@link IdempotencyCoordinator}: `@Idempotent()` handlers (routes, message handlers,
 * GraphQL mutations) and `@IdempotentMethod()` methods of any provider use it, and so can any provider that
 * injects it. Global unless `isGlobal: false`. Its options are checked when the app starts; at
 * shutdown it closes what the store opened (`closeStoreOnShutdown`), never the client or pool you passed in.
 *
 * @example
 * IdempotencyModule.forRootAsync({
 *   inject: [REDIS_CLIENT],
 *   useFactory: (redis: Redis) => ({ store: new RedisIdempotencyStore(redis), ttl: '24h' }),
 * })
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: IDEMPOTENCY_STORE,
      useFactory: (options: IdempotencyModuleOptions) => options.store,
      inject: [IDEMPOTENCY_MODULE_OPTIONS],
    },
    {
      provide: IdempotencyCoordinator,
      useFactory: (options: IdempotencyModuleOptions) => {
        checkModuleOptions(options);
        return new IdempotencyCoordinator(options.store, options.coordinator);
      },
      inject: [IDEMPOTENCY_MODULE_OPTIONS],
    },
    { provide: IDEMPOTENCY_COORDINATOR, useExisting: IdempotencyCoordinator },
    IdempotentRoutes,
    IdempotentMethods,
  ],
  exports: [
    IdempotencyCoordinator,
    IDEMPOTENCY_COORDINATOR,
    IDEMPOTENCY_STORE,
    IDEMPOTENCY_MODULE_OPTIONS,
    IdempotentRoutes,
  ],
})
export class IdempotencyModule extends ConfigurableIdempotencyModule implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.options.closeStoreOnShutdown ?? true) await this.options.store.close?.();
  }
}
