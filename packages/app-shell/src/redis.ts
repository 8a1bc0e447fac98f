import {
  Global,
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { redactCredentials } from './config/env-validation.js';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './config/redis-env.js';
import { answersWithin } from './health/answers-within.js';
import { SHARED_LOOKUP_REDIS_OPTIONS } from './redis-lookup.js';

/** DI token of the shared ioredis client. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A client that fails fast while Redis is down and reconnects by itself: no offline queue (a command fails at once
 * instead of waiting for a reconnect), one retry per command, reconnection with capped exponential backoff, and
 * a command unanswered for `commandTimeoutMs` fails (`Command timed out`): a stalled server is an error, not a hang.
 */
export function createRedisClient(
  url: string,
  logger: Logger,
  commandTimeoutMs = DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
): Redis {
  const redis = new Redis(url, {
    ...SHARED_LOOKUP_REDIS_OPTIONS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    // ioredis reports every failed reconnect; one line per outage is enough.
    if (!down)
      logger.warn({ msg: 'redis unavailable, reconnecting', error: redactCredentials(error.message) });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.log({ msg: 'redis reconnected' });
    down = false;
  });
  return redis;
}

/** Where a service's Redis is: one server, or a Cluster. */
export interface RedisLocation {
  /** The Redis URL (`REDIS_URL`). */
  readonly url: string;
  /**
   * `redis://` URLs of Redis Cluster nodes to start from (the client discovers the others); when given, the client
   * is an ioredis `Cluster` and `url` is not used. Keys a multi-key script touches must then share a hash tag.
   * @default none
   */
  readonly clusterNodes?: readonly string[];
}

/**
 * A new ioredis connection to `location`: a `Cluster` when Cluster nodes are given, else a `Redis`. `options`
 * apply to every node's connection (user, password and TLS of a Cluster come from its first node's URL). Every
 * connection resolves host names through the process' shared lookup ({@link SharedLookupConnector}).
 */
export function createRedisConnection(location: RedisLocation, options: RedisOptions): Redis | Cluster {
  const nodes = location.clusterNodes ?? [];
  if (nodes.length === 0) return new Redis(location.url, { ...SHARED_LOOKUP_REDIS_OPTIONS, ...options });
  const first = new URL(nodes[0] as string);
  return new Cluster(
    nodes.map((node) => {
      const url = new URL(node);
      return { host: url.hostname, port: Number(url.port || 6379) };
    }),
    {
      redisOptions: {
        ...SHARED_LOOKUP_REDIS_OPTIONS,
        ...options,
        ...(first.username === '' ? {} : { username: decodeURIComponent(first.username) }),
        ...(first.password === '' ? {} : { password: decodeURIComponent(first.password) }),
        ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    },
  );
}

/** Options of {@link RedisModule.forRoot}. */
export interface RedisModuleOptions extends RedisLocation {
  /**
   * Fail fast while Redis is down ({@link createRedisClient}): what a request path wants, a 503 at once rather than
   * a hang. `false` keeps ioredis' offline queue (one retry per command), for a consumer that would rather wait;
   * a Cluster client always does (its reconnection is the Cluster's).
   * @default true
   */
  readonly failFast?: boolean;
  /**
   * The client's ioredis `commandTimeout` (`REDIS_COMMAND_TIMEOUT_MS`), fail-fast or not: a command waits at most
   * this long for its answer.
   * @default {@link DEFAULT_REDIS_COMMAND_TIMEOUT_MS}
   */
  readonly commandTimeoutMs?: number;
}

/** The Redis client of the service ({@link REDIS_CLIENT}), closed on shutdown after everything that uses it. */
@Global()
@Module({})
export class RedisModule implements BeforeApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis | Cluster) {}

  static forRoot(options: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS_CLIENT,
          useFactory: () => {
            const commandTimeout = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
            return options.failFast === false || (options.clusterNodes ?? []).length > 0
              ? createRedisConnection(options, { maxRetriesPerRequest: 1, commandTimeout })
              : createRedisClient(options.url, new Logger('redis'), commandTimeout);
          },
        },
      ],
      exports: [REDIS_CLIENT],
    };
  }

  // beforeApplicationShutdown runs after every onModuleDestroy, so the users of the client (the queue) closed
  // first, and before every onApplicationShutdown, where databases close: queues, then Redis, then databases.
  async beforeApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'end') return;
    // QUIT's reply comes before the socket closes: wait for `end`, so nothing after this hook overlaps it.
    const ended = new Promise<void>((resolve) => this.redis.once('end', () => resolve()));
    await this.redis.quit().catch(() => this.redis.disconnect());
    await ended;
  }
}

const PING_TIMEOUT_MS = 500;

/** True when `redis` answers PING within 500 ms (an answer read late because this process was busy counts). */
export function pingRedis(redis: Redis | Cluster): Promise<boolean> {
  return answersWithin(async () => {
    if ((await redis.ping()) !== 'PONG') throw new Error('PING answered without PONG');
  }, PING_TIMEOUT_MS);
}
