import { type RedisLocation } from '@retry-safe/app-shell';
import {
  clusterPrefixProblem,
  configLoader,
  envBullmqPrefix,
  envHttpUrl,
  envInt,
  envPort,
  envRedisCommandTimeoutMs,
  envRedisNodes,
  envRedisUrl,
  idempotencyEnv,
  shellEnv,
  type ConfigLoader,
  type IdempotencySettings,
  type ListenConfig,
} from '@retry-safe/app-shell/config';
import { z } from 'zod';
import { DEFAULT_BACKOFF_POLICY, type BackoffPolicy } from '../retries/backoff-policy.js';

const DAY_MS = 86_400_000;

/**
 * The `IDEMPOTENCY_*` settings of the sends, declared once in the shell. The lease is at least 100 ms (a send takes
 * longer than the coordinator's floor) and at most an hour.
 */
export const WORKER_IDEMPOTENCY = idempotencyEnv(['enabled', 'keyPrefix', 'leaseMs', 'renewLease'], {
  minLeaseMs: 100,
});

/** The environment invoice-worker reads, once, at start-up. */
const EnvSchema = z
  .object({
    REDIS_URL: envRedisUrl().default('redis://127.0.0.1:6379'),
    REDIS_CLUSTER_NODES: envRedisNodes(),
    REDIS_COMMAND_TIMEOUT_MS: envRedisCommandTimeoutMs(),
    MAIL_PROVIDER_URL: envHttpUrl().default('http://127.0.0.1:3003'),
    MAIL_PROVIDER_TIMEOUT_MS: envInt(50, 60_000).default(5_000),
    WORKER_PORT: envPort().default(3004),
    ...shellEnv('127.0.0.1'),
    // The hash tag keeps the invoice queue and its dead-letter queue in one Cluster slot.
    BULLMQ_PREFIX: envBullmqPrefix(50).default('bull'),
    WORKER_CONCURRENCY: envInt(1, 1_000).default(1),
    WORKER_LOCK_DURATION_MS: envInt(100, 3_600_000).default(30_000),
    WORKER_STALLED_INTERVAL_MS: envInt(100, 3_600_000).default(30_000),
    WORKER_MAX_STALLED_COUNT: envInt(0, 100).default(1),
    WORKER_BACKOFF_BASE_MS: envInt(1, DAY_MS).default(DEFAULT_BACKOFF_POLICY.baseMs),
    WORKER_BACKOFF_CAP_MS: envInt(1, DAY_MS).default(DEFAULT_BACKOFF_POLICY.capMs),
    WORKER_RETRY_HORIZON_MS: envInt(1, 30 * DAY_MS).default(DEFAULT_BACKOFF_POLICY.horizonMs),
    WORKER_SHUTDOWN_TIMEOUT_MS: envInt(100, 600_000).default(20_000),
    ...WORKER_IDEMPOTENCY.env,
  })
  .superRefine((e, ctx) => {
    if (e.WORKER_BACKOFF_CAP_MS < e.WORKER_BACKOFF_BASE_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_BACKOFF_CAP_MS'],
        message: `must be at least WORKER_BACKOFF_BASE_MS (${e.WORKER_BACKOFF_BASE_MS})`,
      });
    }
    if (e.WORKER_RETRY_HORIZON_MS < e.WORKER_BACKOFF_CAP_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_RETRY_HORIZON_MS'],
        message: `must be at least WORKER_BACKOFF_CAP_MS (${e.WORKER_BACKOFF_CAP_MS})`,
      });
    }
    const clusterProblem = clusterPrefixProblem(e.REDIS_CLUSTER_NODES, e.BULLMQ_PREFIX);
    if (clusterProblem !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['BULLMQ_PREFIX'], message: clusterProblem });
    }
  });

/** Validated settings of invoice-worker. */
export interface AppConfig extends ListenConfig {
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): BullMQ and the idempotency records share this Redis. */
  readonly redisUrl: string;
  /**
   * `REDIS_CLUSTER_NODES` (default none): comma-separated `redis://` URLs of Cluster nodes to start from; when set,
   * the worker talks to that Redis Cluster instead of `REDIS_URL`, and `BULLMQ_PREFIX` must hold a hash tag.
   */
  readonly redisClusterNodes: readonly string[];
  /**
   * `REDIS_COMMAND_TIMEOUT_MS` (default 2000): the ioredis `commandTimeout` of the shell's client (the idempotency
   * records, the depth gauges). BullMQ's connections wait up to {@link BULLMQ_LONGEST_BLOCK_MS} longer: their
   * `BZPOPMIN` blocks by design while the queue is empty.
   */
  readonly redisCommandTimeoutMs: number;
  readonly mailProvider: {
    /** `MAIL_PROVIDER_URL` (default `http://127.0.0.1:3003`, provider-sim). */
    readonly url: string;
    /** `MAIL_PROVIDER_TIMEOUT_MS` (default 5000): one attempt's timeout. */
    readonly timeoutMs: number;
  };
  /**
   * `WORKER_PORT` (default 3004): the admin listener for `/health`, `/metrics` and `/__faults`, on `HOST`
   * (default `127.0.0.1`); `DRAIN_TIMEOUT_MS` bounds its drain.
   */
  readonly port: number;
  readonly worker: {
    /** `BULLMQ_PREFIX` (default `bull`): prefix of BullMQ's Redis keys; tests isolate queues with it. */
    readonly prefix: string;
    /** `WORKER_CONCURRENCY` (default 1): jobs one process works on at once. */
    readonly concurrency: number;
    /** `WORKER_LOCK_DURATION_MS` (default 30000): a job whose lock is not renewed this long counts as stalled. */
    readonly lockDurationMs: number;
    /** `WORKER_STALLED_INTERVAL_MS` (default 30000): how often the stalled-job check runs. */
    readonly stalledIntervalMs: number;
    /** `WORKER_MAX_STALLED_COUNT` (default 1): stalls after which a job fails instead of being redelivered. */
    readonly maxStalledCount: number;
    /**
     * `WORKER_BACKOFF_BASE_MS` (default 1000), `WORKER_BACKOFF_CAP_MS` (default 60000, at least the base) and
     * `WORKER_RETRY_HORIZON_MS` (default 86400000, at least the cap): the retry policy of transient failures.
     */
    readonly retry: BackoffPolicy;
    /** `WORKER_SHUTDOWN_TIMEOUT_MS` (default 20000): how long SIGTERM waits for the running sends. */
    readonly shutdownTimeoutMs: number;
  };
  /**
   * The sends' idempotency settings ({@link WORKER_IDEMPOTENCY}): `IDEMPOTENCY_ENABLED` (default true; `false` sends
   * directly, the unprotected design, for scenarios), `IDEMPOTENCY_KEY_PREFIX` (default `idem:`, the records' Redis
   * keys), `IDEMPOTENCY_LEASE_MS` (default 30000: how long a crashed sender blocks its invoice) and
   * `IDEMPOTENCY_RENEW_LEASE` (default true).
   */
  readonly idempotency: Pick<IdempotencySettings, 'enabled' | 'keyPrefix' | 'leaseMs' | 'renewLease'>;
  /** `FAULTS_ENABLED` (default false): mounts the fault rules, their `/__faults` routes and the job fault points. */
  readonly faultsEnabled: boolean;
}

/** Where the worker's Redis is, as the shell's Redis client and `createRedisConnection` take it. */
export function redisLocation(config: AppConfig): RedisLocation {
  return { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
}

/**
 * The longest a BullMQ worker's `BZPOPMIN` blocks on Redis (BullMQ caps its block timeout at 10 s), so its
 * connections' command timeout must exceed it: a blocked fetch is waiting for a job, not for a stalled server.
 */
export const BULLMQ_LONGEST_BLOCK_MS = 10_000;

/**
 * The ioredis options of a BullMQ connection of the worker: blocking commands never given up by retries
 * (`maxRetriesPerRequest: null`, which a Worker requires), and every command bounded at the longest block plus
 * `REDIS_COMMAND_TIMEOUT_MS`.
 */
export function bullmqConnectionOptions(config: AppConfig) {
  return {
    maxRetriesPerRequest: null,
    commandTimeout: BULLMQ_LONGEST_BLOCK_MS + config.redisCommandTimeoutMs,
  } as const;
}

/** DI token of the {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Validates the environment into the {@link AppConfig}. */
export const loadConfig: ConfigLoader<AppConfig> = configLoader(
  EnvSchema,
  { service: 'invoice-worker', portVariable: 'WORKER_PORT' },
  (e) => ({
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    mailProvider: { url: e.MAIL_PROVIDER_URL, timeoutMs: e.MAIL_PROVIDER_TIMEOUT_MS },
    worker: {
      prefix: e.BULLMQ_PREFIX,
      concurrency: e.WORKER_CONCURRENCY,
      lockDurationMs: e.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: e.WORKER_MAX_STALLED_COUNT,
      retry: {
        baseMs: e.WORKER_BACKOFF_BASE_MS,
        capMs: e.WORKER_BACKOFF_CAP_MS,
        horizonMs: e.WORKER_RETRY_HORIZON_MS,
      },
      shutdownTimeoutMs: e.WORKER_SHUTDOWN_TIMEOUT_MS,
    },
    idempotency: WORKER_IDEMPOTENCY.configOf(e),
  }),
);
