import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

export const REDIS = Symbol('REDIS');

/** One Redis client for the app, closed on shutdown (the idempotency store closes only its own subscriber). */
@Global()
@Module({
  providers: [
    { provide: REDIS, useFactory: () => new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
