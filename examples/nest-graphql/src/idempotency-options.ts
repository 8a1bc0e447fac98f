import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { IdempotencyModuleOptions, IdempotencyOptionsFactory } from '@retry-safe/idempotency/nest';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { Redis } from 'ioredis';
import { API_CONFIG, type ApiConfig } from './config.js';

/**
 * IdempotencyModule's options (`forRootAsync({ useClass })`): the records in Redis. This class opened the Redis
 * client and the store on it, so it closes both at shutdown, the store (its own subscriber connection) first.
 */
@Injectable()
export class IdempotencyOptions implements IdempotencyOptionsFactory, OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly store: RedisIdempotencyStore;

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
    this.store = new RedisIdempotencyStore(this.redis, { keyPrefix: config.keyPrefix });
  }

  createIdempotencyOptions(): IdempotencyModuleOptions {
    return {
      store: this.store,
      // How long a mutation's result is returned again: longer than any client keeps retrying one mutation.
      ttl: '24h',
      closeStoreOnShutdown: false,
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
    await this.redis.quit();
  }
}
