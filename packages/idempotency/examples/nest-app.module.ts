import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { ChargesController } from './nest-charges.controller.js';
import { REDIS, RedisModule } from './nest-redis.module.js';

@Module({
  imports: [
    RedisModule.forRoot('redis://127.0.0.1:6379'),
    // Global by default: every module's @Idempotent() routes and providers reach it.
    IdempotencyModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: Redis) => ({
        store: new RedisIdempotencyStore(redis, { keyPrefix: 'charges-app:' }),
        // How long a response is replayed: longer than any client keeps retrying one request.
        ttl: '24h',
        coordinator: { inFlight: 'raise' },
      }),
    }),
  ],
  controllers: [ChargesController],
})
export class AppModule {}
