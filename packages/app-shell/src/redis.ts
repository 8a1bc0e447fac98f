import {
  Controller,
  Get,
  Global,
  HttpStatus,
  Inject,
  Logger,
  Module,
  Res,
  type DynamicModule,
  type InjectionToken,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Response } from 'express';
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

/** Options of {@link RedisModule.forRoot}: where the URL comes from (the app's config token). */
export interface RedisModuleOptions<T> {
  /** The token of the app's validated config. */
  readonly configToken: InjectionToken;
  /** The Redis URL (`REDIS_URL`) in that config. */
  readonly url: (config: T) => string;
}

/** The Redis client of the service ({@link REDIS_CLIENT}), closed on shutdown after everything that uses it. */
@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  static forRoot<T>(options: RedisModuleOptions<T>): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS_CLIENT,
          inject: [options.configToken],
          useFactory: (config: T) => createRedisClient(options.url(config), new Logger('redis')),
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

/** What `GET /health` answers. */
export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { redis: 'up' | 'down' };
}

const PING_TIMEOUT_MS = 500;

/** `GET /health`: 200 when Redis ({@link REDIS_CLIENT}) answers a PING within 500 ms, 503 otherwise. */
@Controller('health')
export class RedisHealthController {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  @Get()
  async check(@Res({ passthrough: true }) res: Response): Promise<HealthReport> {
    const redisUp = await ping(this.redis);
    if (!redisUp) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: redisUp ? 'ok' : 'unavailable', checks: { redis: redisUp ? 'up' : 'down' } };
  }
}

/** Liveness and readiness: `GET /health` on the service's Redis (import {@link RedisModule} too). */
@Module({ controllers: [RedisHealthController] })
export class RedisHealthModule {}

async function ping(redis: Redis): Promise<boolean> {
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
