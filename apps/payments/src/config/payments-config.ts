import { InFlightMode, StoreUnavailablePolicy } from '@retry-safe/idempotency';
import { z } from 'zod';

const int = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
const bool = z.stringbool({ error: "must be 'true' or 'false'" });
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((url) => url.replace(/\/+$/, ''));
const redisUrl = z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });

/** The environment the payments service reads, once, at start-up. */
const EnvSchema = z.object({
  PAYMENTS_PORT: int(1, 65_535).default(3002),
  PROVIDER_URL: httpUrl.default('http://127.0.0.1:3003'),
  PROVIDER_TIMEOUT_MS: int(10, 120_000).default(5_000),
  PROVIDER_RETRIES: int(0, 10).default(0),
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  IDEMPOTENCY_ENABLED: bool.default(true),
  IDEMPOTENCY_IN_FLIGHT: z
    .enum([InFlightMode.Raise, InFlightMode.Wait, InFlightMode.Run], {
      error: "must be 'raise', 'wait' or 'run'",
    })
    .default(InFlightMode.Raise),
  IDEMPOTENCY_TTL_MS: int(1_000, 30 * 86_400_000).default(3_600_000),
  IDEMPOTENCY_LEASE_MS: int(10, 3_600_000).default(30_000),
  IDEMPOTENCY_RENEW_LEASE: bool.default(true),
  IDEMPOTENCY_ON_STORE_UNAVAILABLE: z
    .enum([StoreUnavailablePolicy.FailClosed, StoreUnavailablePolicy.FailOpen], {
      error: "must be 'fail-closed' or 'fail-open'",
    })
    .default(StoreUnavailablePolicy.FailClosed),
  IDEMPOTENCY_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:{}-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_.:{}-]')
    .default('idem:'),
  IDEMPOTENCY_COMMAND_TIMEOUT_MS: int(1, 60_000).default(1_000),
  REQUEST_BUDGET_MS: int(100, 120_000).default(10_000),
  BODY_LIMIT_BYTES: int(256, 1_048_576).default(16_384),
  FAULTS_ENABLED: bool.default(false),
});

/** The coordinator's settings (each one an env var, so scenarios can compare designs). */
export interface IdempotencySettings {
  /** `IDEMPOTENCY_ENABLED` (default true); false is the unprotected design: every call charges. */
  readonly enabled: boolean;
  /** `IDEMPOTENCY_IN_FLIGHT` (default `raise`): what a duplicate does while the first request runs. */
  readonly inFlight: InFlightMode;
  /** `IDEMPOTENCY_TTL_MS` (default 3600000, 1 hour): how long a Charge is replayed. */
  readonly ttlMs: number;
  /** `IDEMPOTENCY_LEASE_MS` (default 30000): how long a crashed request blocks its key. */
  readonly leaseMs: number;
  /** `IDEMPOTENCY_RENEW_LEASE` (default true): renew the lease while the provider call runs. */
  readonly renewLease: boolean;
  /** `IDEMPOTENCY_ON_STORE_UNAVAILABLE` (default `fail-closed`): 503, or charge unprotected (`fail-open`). */
  readonly onStoreUnavailable: StoreUnavailablePolicy;
  /** `IDEMPOTENCY_KEY_PREFIX` (default `idem:`): prefix of the records in Redis. */
  readonly keyPrefix: string;
  /** `IDEMPOTENCY_COMMAND_TIMEOUT_MS` (default 1000): bound of every Redis call of the store. */
  readonly commandTimeoutMs: number;
}

/** Validated settings of the payments service. */
export interface PaymentsConfig {
  /** `PAYMENTS_PORT` (default 3002). */
  readonly port: number;
  /** `PROVIDER_URL` (default `http://127.0.0.1:3003`), `PROVIDER_TIMEOUT_MS` (5000), `PROVIDER_RETRIES` (0). */
  readonly provider: { readonly url: string; readonly timeoutMs: number; readonly retries: number };
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): the Redis of the idempotency store. */
  readonly redisUrl: string;
  readonly idempotency: IdempotencySettings;
  /** `REQUEST_BUDGET_MS` (default 10000): the deadline of a call that arrives without `x-request-deadline`. */
  readonly requestBudgetMs: number;
  /** `BODY_LIMIT_BYTES` (default 16384): larger bodies get 413. */
  readonly bodyLimitBytes: number;
  /** `FAULTS_ENABLED` (default false): mounts the fault-injection rules and their `/__faults` routes. */
  readonly faultsEnabled: boolean;
}

/** DI token of the {@link PaymentsConfig}. */
export const PAYMENTS_CONFIG = Symbol('PAYMENTS_CONFIG');

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
export function loadPaymentsConfig(env: Record<string, string | undefined>): PaymentsConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `  ${name}=${JSON.stringify(env[name] ?? null)}: ${issue.message}`;
    });
    throw new ConfigError(`payments: invalid environment\n${lines.join('\n')}`, { cause: parsed.error });
  }
  const e = parsed.data;
  return {
    port: e.PAYMENTS_PORT,
    provider: { url: e.PROVIDER_URL, timeoutMs: e.PROVIDER_TIMEOUT_MS, retries: e.PROVIDER_RETRIES },
    redisUrl: e.REDIS_URL,
    idempotency: {
      enabled: e.IDEMPOTENCY_ENABLED,
      inFlight: e.IDEMPOTENCY_IN_FLIGHT,
      ttlMs: e.IDEMPOTENCY_TTL_MS,
      leaseMs: e.IDEMPOTENCY_LEASE_MS,
      renewLease: e.IDEMPOTENCY_RENEW_LEASE,
      onStoreUnavailable: e.IDEMPOTENCY_ON_STORE_UNAVAILABLE,
      keyPrefix: e.IDEMPOTENCY_KEY_PREFIX,
      commandTimeoutMs: e.IDEMPOTENCY_COMMAND_TIMEOUT_MS,
    },
    requestBudgetMs: e.REQUEST_BUDGET_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    faultsEnabled: e.FAULTS_ENABLED,
  };
}
