import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyCoordinator } from '../coordinator.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import {
  ConfigurableIdempotencyModule,
  IDEMPOTENCY_MODULE_OPTIONS,
} from './idempotency.module-definition.js';
import { IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE } from './idempotency.tokens.js';

/**
 * Provides an {@link IdempotencyCoordinator} to a Nest application. It holds no business logic: services inject
 * the coordinator and call `coordinate` in their use cases; the app's exception filter maps errors with
 * `problemForIdempotencyError`.
 *
 * @example
 * IdempotencyModule.forRootAsync({
 *   inject: [REDIS_CLIENT],
 *   useFactory: (redis: Redis) => ({ store: new RedisIdempotencyStore(redis), coordinator: { inFlight: 'raise' } }),
 *   isGlobal: true,
 * })
 */
@Module({
  providers: [
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
  ],
  exports: [IdempotencyCoordinator, IDEMPOTENCY_COORDINATOR, IDEMPOTENCY_STORE, IDEMPOTENCY_MODULE_OPTIONS],
})
export class IdempotencyModule extends ConfigurableIdempotencyModule implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.options.closeStoreOnShutdown ?? true) await this.options.store.close?.();
  }
}
