import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import type { Redis } from 'ioredis';
import { ChargesController } from './charges.controller.js';
import type { ServiceConfig } from './config.js';
import { Mailer } from './mailer.js';
import { PaymentProvider } from './payment-provider.js';
import { ReceiptsController } from './receipts.controller.js';
import { REDIS, RedisModule } from './redis.module.js';
import { RefusedMessagesInterceptor } from './refused-messages.interceptor.js';

@Module({})
export class AppModule {
  static forRoot(config: ServiceConfig): DynamicModule {
    return {
      module: AppModule,
      controllers: [ChargesController, ReceiptsController],
      providers: [
        PaymentProvider,
        Mailer,
        // App-wide: it runs around every handler's @Idempotent(), so it sees the messages those refuse.
        { provide: APP_INTERCEPTOR, useClass: RefusedMessagesInterceptor },
      ],
      imports: [
        RedisModule.forRoot(config.redisUrl),
        IdempotencyModule.forRootAsync({
          inject: [REDIS],
          useFactory: (redis: Redis) => ({
            store: new RedisIdempotencyStore(redis, { keyPrefix: config.keyPrefix }),
            // How long a reply is kept for duplicates: longer than a message waits in a queue or a caller retries.
            ttl: '24h',
          }),
        }),
      ],
    };
  }
}
