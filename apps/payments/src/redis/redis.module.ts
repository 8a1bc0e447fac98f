import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { PAYMENTS_CONFIG, type PaymentsConfig } from '../config/payments-config.js';

/** DI token of the shared ioredis client. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A client that fails fast while Redis is down and reconnects by itself: no offline queue (a command fails at once
 * instead of waiting for a reconnect), one retry per command, reconnection with capped exponential backoff.
 */
export function createRedisClient(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    // ioredis reports every failed reconnect; one line per outage is enough.
    if (!down) logger.warn({ msg: 'redis unavailable, reconnecting', error: error.message });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.log({ msg: 'redis reconnected' });
    down = false;
  });
  return redis;
}

/** The Redis client of the service (`REDIS_URL`), closed on shutdown after everything that uses it. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [PAYMENTS_CONFIG],
      useFactory: (config: PaymentsConfig) => createRedisClient(config.redisUrl, new Logger('redis')),
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  // onApplicationShutdown runs after every onModuleDestroy, so the users of the client (the queue) closed first.
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
