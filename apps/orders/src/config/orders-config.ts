import { z } from 'zod';

const int = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((url) => url.replace(/\/+$/, ''));
const redisUrl = z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });

/** The environment the orders service reads, once, at start-up. */
const EnvSchema = z.object({
  ORDERS_PORT: int(1, 65_535).default(3001),
  PAYMENTS_URL: z
    .string()
    .default('http://127.0.0.1:3002')
    .transform((list) => list.split(',').map((url) => url.trim()))
    .pipe(z.array(httpUrl).min(1, 'needs at least one URL')),
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  BULLMQ_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_.-]')
    .default('bull'),
  UPSTREAM_RETRIES: int(0, 10).default(3),
  UPSTREAM_ATTEMPT_TIMEOUT_MS: int(10, 120_000).default(5_000),
  REQUEST_BUDGET_MS: int(100, 120_000).default(10_000),
  BODY_LIMIT_BYTES: int(256, 1_048_576).default(16_384),
  FAULTS_ENABLED: z.stringbool({ error: "must be 'true' or 'false'" }).default(false),
});

/** Validated settings of the orders service. */
export interface OrdersConfig {
  /** `ORDERS_PORT` (default 3001). */
  readonly port: number;
  /** `PAYMENTS_URL` (default `http://127.0.0.1:3002`): one URL, or several separated by commas (round robin). */
  readonly paymentsUrls: readonly string[];
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): the Redis of the invoice queue. */
  readonly redisUrl: string;
  /** `BULLMQ_PREFIX` (default `bull`): the key prefix of the queue (the worker must use the same). */
  readonly bullmqPrefix: string;
  /** `UPSTREAM_RETRIES` (default 3) and `UPSTREAM_ATTEMPT_TIMEOUT_MS` (default 5000) of the calls to payments. */
  readonly upstream: { readonly retries: number; readonly attemptTimeoutMs: number };
  /** `REQUEST_BUDGET_MS` (default 10000): the deadline of a call that arrives without `x-request-deadline`. */
  readonly requestBudgetMs: number;
  /** `BODY_LIMIT_BYTES` (default 16384): larger bodies get 413. */
  readonly bodyLimitBytes: number;
  /** `FAULTS_ENABLED` (default false): mounts the fault-injection rules and their `/__faults` routes. */
  readonly faultsEnabled: boolean;
}

/** DI token of the {@link OrdersConfig}. */
export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');

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
export function loadOrdersConfig(env: Record<string, string | undefined>): OrdersConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `  ${name}=${JSON.stringify(env[name] ?? null)}: ${issue.message}`;
    });
    throw new ConfigError(`orders: invalid environment\n${lines.join('\n')}`, { cause: parsed.error });
  }
  const e = parsed.data;
  return {
    port: e.ORDERS_PORT,
    paymentsUrls: e.PAYMENTS_URL,
    redisUrl: e.REDIS_URL,
    bullmqPrefix: e.BULLMQ_PREFIX,
    upstream: { retries: e.UPSTREAM_RETRIES, attemptTimeoutMs: e.UPSTREAM_ATTEMPT_TIMEOUT_MS },
    requestBudgetMs: e.REQUEST_BUDGET_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    faultsEnabled: e.FAULTS_ENABLED,
  };
}
