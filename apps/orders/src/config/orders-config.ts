import {
  clusterPrefixProblem,
  configLoader,
  envBullmqPrefix,
  envHttpUrls,
  envInt,
  envInternalToken,
  envPort,
  envRedisCommandTimeoutMs,
  envRedisNodes,
  envPostgresUrl,
  envRedisUrl,
  idempotencyEnv,
  inboundConfigOf,
  inboundEnv,
  shellEnv,
  upstreamConfigOf,
  upstreamEnv,
  type InboundConfig,
  type ConfigLoader,
  type ListenConfig,
  type UpstreamConfig,
} from '@retry-safe/app-shell/config';
import { POSTGRES_STORE_DEFAULTS, POSTGRES_STORE_LIMITS } from '@retry-safe/idempotency/postgres';
import { z } from 'zod';

const DAY_MS = 86_400_000;

/**
 * The `IDEMPOTENCY_*` settings of orders' records (declared once, in the shell's `idempotencyEnv`), with the Postgres
 * store's range for `IDEMPOTENCY_COMMAND_TIMEOUT_MS`.
 */
export const ORDERS_IDEMPOTENCY = idempotencyEnv(['enabled', 'ttlMs', 'commandTimeoutMs'], {
  commandTimeoutMs: {
    ...POSTGRES_STORE_LIMITS.commandTimeoutMs,
    default: POSTGRES_STORE_DEFAULTS.commandTimeoutMs,
  },
});

/** The local server's `retry_safe` database, the one `pnpm stack` creates if it is missing. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/retry_safe';

/** The environment the orders service reads, once, at start-up. */
const EnvSchema = z
  .object({
    ORDERS_PORT: envPort().default(3001),
    ...shellEnv('127.0.0.1'),
    INTERNAL_TOKEN: envInternalToken(),
    PAYMENTS_URL: envHttpUrls('http://127.0.0.1:3002'),
    REDIS_URL: envRedisUrl().default('redis://127.0.0.1:6379'),
    REDIS_CLUSTER_NODES: envRedisNodes(),
    REDIS_COMMAND_TIMEOUT_MS: envRedisCommandTimeoutMs(),
    DATABASE_URL: envPostgresUrl().default(DEFAULT_DATABASE_URL),
    DATABASE_POOL_SIZE: envInt(1, 100).default(10),
    DATABASE_STATEMENT_TIMEOUT_MS: envInt(100, 600_000).default(5_000),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: envInt(100, 600_000).default(5_000),
    DATABASE_CONNECT_TIMEOUT_MS: envInt(100, 60_000).default(2_000),
    // IDEMPOTENCY_ENABLED is for `pnpm bench:http` only (the chain without records): never set it in a deployment.
    ...ORDERS_IDEMPOTENCY.env,
    // The hash tag keeps every key of the queue in one Cluster slot (BullMQ's scripts touch several at once).
    BULLMQ_PREFIX: envBullmqPrefix(64).default('bull'),
    OUTBOX_POLL_MS: envInt(10, 60_000).default(1_000),
    OUTBOX_BATCH_SIZE: envInt(1, 1_000).default(100),
    OUTBOX_LEASE_MS: envInt(100, 600_000).default(5_000),
    OUTBOX_RETENTION_MS: envInt(1_000, 90 * DAY_MS).default(7 * DAY_MS),
    OUTBOX_CLEANUP_INTERVAL_MS: envInt(100, DAY_MS).default(60_000),
    OUTBOX_CLEANUP_BATCH_SIZE: envInt(1, 100_000).default(1_000),
    INVOICE_JOB_BACKOFF_MS: envInt(10, 60_000).default(1_000),
    RESERVATION_SWEEP_MS: envInt(100, 3_600_000).default(60_000),
    INVOICE_MAX_VERSIONS: envInt(1, 1_000_000).default(100),
    INVOICE_RATE_LIMIT: envInt(1, 1_000_000).default(300),
    INVOICE_RATE_WINDOW_MS: envInt(1_000, DAY_MS).default(60_000),
    INVOICE_RATE_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.:{}-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_.:{}-]')
      .default('orders:invoice-rate:'),
    ...upstreamEnv(),
    ...inboundEnv(),
  })
  .superRefine((e, ctx) => {
    const problem = clusterPrefixProblem(e.REDIS_CLUSTER_NODES, e.BULLMQ_PREFIX);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['BULLMQ_PREFIX'], message: problem });
    // A lease shorter than a publish's bound would let a second relay take rows the first is still publishing.
    if (e.OUTBOX_LEASE_MS <= e.REDIS_COMMAND_TIMEOUT_MS) {
      const message = `must be longer than REDIS_COMMAND_TIMEOUT_MS (${e.REDIS_COMMAND_TIMEOUT_MS})`;
      ctx.addIssue({ code: 'custom', path: ['OUTBOX_LEASE_MS'], message });
    }
  });

/** Validated settings of the orders service. */
export interface OrdersConfig extends ListenConfig, InboundConfig {
  /** `ORDERS_PORT` (default 3001); `HOST` (default `127.0.0.1`: internal); `DRAIN_TIMEOUT_MS`. */
  readonly port: number;
  /** `INTERNAL_TOKEN` (required): what the gateway must send, and what orders sends to payments. */
  readonly internalToken: string;
  /** `PAYMENTS_URL` (default `http://127.0.0.1:3002`): one URL, or several separated by commas (round robin). */
  readonly paymentsUrls: readonly string[];
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): the Redis of the invoice queue. */
  readonly redisUrl: string;
  /**
   * `REDIS_CLUSTER_NODES` (default none): comma-separated `redis://` URLs of Redis Cluster nodes; when set, the
   * queue lives on that Cluster instead of `REDIS_URL`, and `BULLMQ_PREFIX` must hold a hash tag (`{invoices}`).
   */
  readonly redisClusterNodes: readonly string[];
  /**
   * `REDIS_COMMAND_TIMEOUT_MS` (default 2000): a Redis command unanswered this long fails (the relay's publish,
   * the readiness ping, QUIT at shutdown), so a stalled Redis never holds anything longer.
   */
  readonly redisCommandTimeoutMs: number;
  /** `DATABASE_URL` (default {@link DEFAULT_DATABASE_URL}): the orders database; its migrations run at start-up. */
  readonly databaseUrl: string;
  /** `DATABASE_POOL_SIZE` (default 10): connections of the orders pool. */
  readonly databasePoolSize: number;
  /**
   * The bounds of every connection of the orders pool (and the relay's `LISTEN` connection):
   * `DATABASE_STATEMENT_TIMEOUT_MS` (default 5000, PostgreSQL's `statement_timeout`),
   * `DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS` (default 5000, `idle_in_transaction_session_timeout`: the server
   * ends a session whose transaction waits on its client longer, releasing its locks) and
   * `DATABASE_CONNECT_TIMEOUT_MS` (default 2000, node-postgres' `connectionTimeoutMillis`: connecting, or waiting
   * for a free connection of a full pool).
   */
  readonly databaseTimeouts: {
    readonly statementMs: number;
    readonly idleInTransactionMs: number;
    readonly connectMs: number;
  };
  /**
   * The processing records orders keeps in its own database, in the transaction of the change they protect:
   * `IDEMPOTENCY_TTL_MS` (default 3600000, an hour: keep it equal to payments', which replays the Charge of every
   * retry orders passes on) and `IDEMPOTENCY_COMMAND_TIMEOUT_MS` (the store's default, 1000).
   * `IDEMPOTENCY_ENABLED` (default true) is a BENCHMARK SWITCH, passed to the library as its `enabled` setting:
   * `false` writes orders and applies charges with no processing record (a retry creates a second order), so
   * `pnpm bench:http` can measure what the record costs.
   */
  readonly idempotency: {
    readonly enabled: boolean;
    readonly ttlMs: number;
    readonly commandTimeoutMs: number;
  };
  /** `BULLMQ_PREFIX` (default `bull`): the key prefix of the queue (the worker must use the same). */
  readonly bullmqPrefix: string;
  /**
   * The invoice relay: `OUTBOX_POLL_MS` (default 1000), how often it looks for unpublished rows besides being woken
   * by `NOTIFY` on every commit; `OUTBOX_BATCH_SIZE` (default 100), rows one relay round publishes at most;
   * `OUTBOX_LEASE_MS` (default 5000, longer than `REDIS_COMMAND_TIMEOUT_MS`), how long a claimed row is the
   * claiming relay's before another may take it (a relay that died while publishing);
   * `INVOICE_JOB_BACKOFF_MS` (default 1000), the first of the 5 exponential backoffs a published job carries.
   * Published rows are deleted after `OUTBOX_RETENTION_MS` (default 604800000, 7 days), every
   * `OUTBOX_CLEANUP_INTERVAL_MS` (default 60000), in batches of `OUTBOX_CLEANUP_BATCH_SIZE` (default 1000).
   */
  readonly outbox: {
    readonly pollMs: number;
    readonly batchSize: number;
    readonly leaseMs: number;
    readonly retentionMs: number;
    readonly cleanupIntervalMs: number;
    readonly cleanupBatchSize: number;
    readonly jobBackoffMs: number;
  };
  /**
   * `RESERVATION_SWEEP_MS` (default 60000): how often the reservations of payments whose outcome was never learned
   * are released once their key's record expired (`IDEMPOTENCY_TTL_MS` after the reservation).
   */
  readonly reservationSweepMs: number;
  /**
   * What one tenant may ask of the invoices: `INVOICE_MAX_VERSIONS` (default 100) versions per order (a new one
   * past it is refused, 422 `invoice_version_limit`), and `INVOICE_RATE_LIMIT` (default 300) requests per
   * `INVOICE_RATE_WINDOW_MS` (default 60000), a burst of the whole limit at most (429 `invoice_rate_limited` with
   * `Retry-After`), counted in Redis under `INVOICE_RATE_KEY_PREFIX` (default `orders:invoice-rate:`) + tenant.
   */
  readonly invoices: {
    readonly maxVersions: number;
    readonly rateLimit: { readonly limit: number; readonly windowMs: number; readonly keyPrefix: string };
  };
  /** `UPSTREAM_RETRIES` (default 3) and `UPSTREAM_ATTEMPT_TIMEOUT_MS` (default 5000) of the calls to payments. */
  readonly upstream: UpstreamConfig;
}

/** DI token of the {@link OrdersConfig}. */
export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');

/** Validates the environment into the {@link OrdersConfig} (never echoing `INTERNAL_TOKEN` back in its errors). */
export const loadOrdersConfig: ConfigLoader<OrdersConfig> = configLoader(
  EnvSchema,
  { service: 'orders', portVariable: 'ORDERS_PORT', secrets: new Set(['INTERNAL_TOKEN']) },
  (e) => ({
    ...inboundConfigOf(e),
    internalToken: e.INTERNAL_TOKEN,
    paymentsUrls: e.PAYMENTS_URL,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeouts: {
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    },
    idempotency: ORDERS_IDEMPOTENCY.configOf(e),
    bullmqPrefix: e.BULLMQ_PREFIX,
    outbox: {
      pollMs: e.OUTBOX_POLL_MS,
      batchSize: e.OUTBOX_BATCH_SIZE,
      leaseMs: e.OUTBOX_LEASE_MS,
      retentionMs: e.OUTBOX_RETENTION_MS,
      cleanupIntervalMs: e.OUTBOX_CLEANUP_INTERVAL_MS,
      cleanupBatchSize: e.OUTBOX_CLEANUP_BATCH_SIZE,
      jobBackoffMs: e.INVOICE_JOB_BACKOFF_MS,
    },
    reservationSweepMs: e.RESERVATION_SWEEP_MS,
    invoices: {
      maxVersions: e.INVOICE_MAX_VERSIONS,
      rateLimit: {
        limit: e.INVOICE_RATE_LIMIT,
        windowMs: e.INVOICE_RATE_WINDOW_MS,
        keyPrefix: e.INVOICE_RATE_KEY_PREFIX,
      },
    },
    upstream: upstreamConfigOf(e),
  }),
);
