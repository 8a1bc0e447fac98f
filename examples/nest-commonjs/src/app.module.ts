import { Module } from '@nestjs/common';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { Redis } from 'ioredis';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { REDIS, RedisModule } from './redis.module';

@Module({
  imports: [
    RedisModule,
    IdempotencyModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: Redis) => ({
        // The prefix of every record, to share a Redis with other data.
        store: new RedisIdempotencyStore(redis, { keyPrefix: process.env.IDEMPOTENCY_KEY_PREFIX ?? 'idem:' }),
        ttl: '24h',
      }),
      isGlobal: true,
    }),
  ],
  controllers: [OrdersController],
  providers: [OrdersService],
})
export class AppModule {}
