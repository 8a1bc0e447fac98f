import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

/** The app's one Redis client, injected where it is needed (the idempotency store among others). */
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

  // The client is the app's: the app closes it, after IdempotencyModule closed what its store opened.
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
