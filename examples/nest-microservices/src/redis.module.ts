import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

/** The service's one Redis client: the idempotency store borrows it. */
export const REDIS = Symbol('REDIS');

@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  static forRoot(url: string): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS, useFactory: () => new Redis(url, { maxRetriesPerRequest: 2 }) }],
      exports: [REDIS],
    };
  }

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  // The client is the service's: closed here, after IdempotencyModule closed what its store opened itself.
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
