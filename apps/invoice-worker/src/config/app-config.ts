import { z } from 'zod';

const int = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
const bool = z.stringbool({ error: "must be 'true' or 'false'" });
const url = (protocols: RegExp) => z.url({ protocol: protocols, error: `must be a ${protocols.source} URL` });

/** The environment invoice-worker reads, once, at start-up. */
const EnvSchema = z.object({
  REDIS_URL: url(/^rediss?$/).default('redis://127.0.0.1:6379'),
  MAIL_PROVIDER_URL: url(/^https?$/).default('http://127.0.0.1:3003'),
  MAIL_PROVIDER_TIMEOUT_MS: int(50, 60_000).default(5_000),
  WORKER_PORT: int(1, 65_535).default(3004),
  BULLMQ_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,50}$/, 'must be 1-50 letters, digits, _ . or -')
    .default('bull'),
  WORKER_CONCURRENCY: int(1, 1_000).default(1),
  WORKER_LOCK_DURATION_MS: int(100, 3_600_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: int(100, 3_600_000).default(30_000),
  WORKER_MAX_STALLED_COUNT: int(0, 100).default(1),
  IDEMPOTENCY_ENABLED: bool.default(true),
  IDEMPOTENCY_KEY_PREFIX: z
    .string()
    .regex(/^[^\s]{1,50}$/, 'must be 1-50 characters without spaces')
    .default('idem:'),
  IDEMPOTENCY_LEASE_MS: int(100, 3_600_000).default(30_000),
  IDEMPOTENCY_RENEW_LEASE: bool.default(true),
  FAULTS_ENABLED: bool.default(false),
});

/** Validated settings of invoice-worker. */
export interface AppConfig {
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): BullMQ and the idempotency records share this Redis. */
  readonly redisUrl: string;
  readonly mailProvider: {
    /** `MAIL_PROVIDER_URL` (default `http://127.0.0.1:3003`, provider-sim). */
    readonly url: string;
    /** `MAIL_PROVIDER_TIMEOUT_MS` (default 5000): one attempt's timeout. */
    readonly timeoutMs: number;
  };
  /** `WORKER_PORT` (default 3004): the small HTTP listener for `/health`, `/metrics` and `/__faults`. */
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
  };
  readonly idempotency: {
    /** `IDEMPOTENCY_ENABLED` (default true); `false` sends directly (the unprotected design, for scenarios). */
    readonly enabled: boolean;
    /** `IDEMPOTENCY_KEY_PREFIX` (default `idem:`): prefix of the records' Redis keys. */
    readonly keyPrefix: string;
    /** `IDEMPOTENCY_LEASE_MS` (default 30000): how long a crashed sender blocks its invoice. */
    readonly leaseMs: number;
    /** `IDEMPOTENCY_RENEW_LEASE` (default true). */
    readonly renewLease: boolean;
  };
  /** `FAULTS_ENABLED` (default false): mounts the fault rules, their `/__faults` routes and the job fault points. */
  readonly faultsEnabled: boolean;
}

/** DI token of the {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** The environment is invalid; `message` names every offending variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment. Called once by `main.ts` (tests pass their own record).
 * @throws {@link ConfigError} listing every invalid variable with the value it got.
 */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `  ${name}=${JSON.stringify(env[name] ?? null)}: ${issue.message}`;
    });
    throw new ConfigError(`invoice-worker: invalid environment\n${lines.join('\n')}`, {
      cause: parsed.error,
    });
  }
  const e = parsed.data;
  return {
    redisUrl: e.REDIS_URL,
    mailProvider: { url: e.MAIL_PROVIDER_URL, timeoutMs: e.MAIL_PROVIDER_TIMEOUT_MS },
    port: e.WORKER_PORT,
    worker: {
      prefix: e.BULLMQ_PREFIX,
      concurrency: e.WORKER_CONCURRENCY,
      lockDurationMs: e.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: e.WORKER_MAX_STALLED_COUNT,
    },
    idempotency: {
      enabled: e.IDEMPOTENCY_ENABLED,
      keyPrefix: e.IDEMPOTENCY_KEY_PREFIX,
      leaseMs: e.IDEMPOTENCY_LEASE_MS,
      renewLease: e.IDEMPOTENCY_RENEW_LEASE,
    },
    faultsEnabled: e.FAULTS_ENABLED,
  };
}
