import {
  Global,
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Redis } from 'ioredis';

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

/** Options of {@link RedisModule.forRoot}. */
export interface RedisModuleOptions {
  /** The Redis URL (`REDIS_URL`). */
  readonly url: string;
  /**
   * Fail fast while Redis is down ({@link createRedisClient}): what a request path wants, a 503 at once rather than
   * a hang. `false` keeps ioredis' offline queue (one retry per command), for a consumer that would rather wait.
   * @default true
   */
  readonly failFast?: boolean;
}

/** The Redis client of the service ({@link REDIS_CLIENT}), closed on shutdown after everything that uses it. */
@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  static forRoot(options: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS_CLIENT,
          useFactory: () =>
            options.failFast === false
              ? new Redis(options.url, { maxRetriesPerRequest: 1 })
              : createRedisClient(options.url, new Logger('redis')),
        },
      ],
      exports: [REDIS_CLIENT],
    };
  }

  // onApplicationShutdown runs after every onModuleDestroy, so the users of the client (the queue) closed first.
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const PING_TIMEOUT_MS = 500;

/** True when `redis` answers PING within 500 ms. */
export async function pingRedis(redis: Redis): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([redis.ping().then((reply) => reply === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
