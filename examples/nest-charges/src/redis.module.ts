import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';

export const REDIS = Symbol('REDIS');

/** One Redis client for the app, closed on shutdown (the idempotency store closes only its own subscriber). */
@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  static forRoot(url: string): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS, useFactory: () => new Redis(url) }],
      exports: [REDIS],
    };
  }

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
