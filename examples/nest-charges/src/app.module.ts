import { Module, type DynamicModule } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { ChargesController } from './charges.controller.js';
import { PaymentProvider } from './payment-provider.js';
import { REDIS, RedisModule } from './redis.module.js';

export interface AppConfig {
  redisUrl: string;
  /** Prefix of every idempotency record in Redis, to share a Redis with other data. */
  keyPrefix: string;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RedisModule.forRoot(config.redisUrl),
        IdempotencyModule.forRootAsync({
          inject: [REDIS],
          useFactory: (redis: Redis) => ({
            store: new RedisIdempotencyStore(redis, { keyPrefix: config.keyPrefix }),
            // How long a response is replayed: longer than any client keeps retrying one request.
            ttlMs: 24 * 60 * 60 * 1000,
          }),
          isGlobal: true,
        }),
      ],
      controllers: [ChargesController],
      providers: [PaymentProvider],
    };
  }
}
