import { Module, type DynamicModule } from '@nestjs/common';
import type { IdempotencyStore } from '@retry-safe/idempotency';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { ChargesController } from './charges.controller.js';
import type { AppConfig } from './config.js';
import { PaymentProvider } from './payment-provider.js';
import { RefundsController } from './refunds.controller.js';
import { IDEMPOTENCY_RECORDS, StoreModule } from './store.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        IdempotencyModule.forRootAsync({
          imports: [StoreModule.forRoot(config.store)],
          inject: [IDEMPOTENCY_RECORDS],
          useFactory: (store: IdempotencyStore) => ({
            store,
            // How long a response is replayed: longer than any client keeps retrying one request.
            ttl: '24h',
            // StoreModule closes it, before the Redis client or the pool under it.
            closeStoreOnShutdown: false,
          }),
          // Every module's @Idempotent() routes find the coordinator, not only this module's.
          isGlobal: true,
        }),
      ],
      controllers: [ChargesController, RefundsController],
      providers: [PaymentProvider],
    };
  }
}
