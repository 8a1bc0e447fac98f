import {
  IDEMPOTENCY_DEFAULTS,
  IDEMPOTENCY_LIMITS,
  InFlightMode,
  StoreUnavailablePolicy,
} from '@retry-safe/idempotency';
import { REDIS_STORE_DEFAULTS, REDIS_STORE_LIMITS } from '@retry-safe/idempotency/redis';
import {
  configLoader,
  envBool,
  envHttpUrl,
  envInt,
  envInternalToken,
  envPort,
  envRedisCommandTimeoutMs,
  envRedisUrl,
  inboundConfigOf,
  inboundEnv,
  shellEnv,
  type InboundConfig,
  type ConfigLoader,
  type ListenConfig,
} from '@retry-safe/app-shell';
import { z } from 'zod';

/**
 * Longest lease payments accepts: an hour, stricter than the coordinator's own limit (a crashed charge must not
 * block its key for days).
 */
export const MAX_LEASE_MS = 3_600_000;

/** The environment the payments service reads, once, at start-up. */
const EnvSchema = z.object({
  PAYMENTS_PORT: envPort().default(3002),
  ...shellEnv('127.0.0.1'),
  INTERNAL_TOKEN: envInternalToken(),
  PROVIDER_URL: envHttpUrl().default('http://127.0.0.1:3003'),
  PROVIDER_TIMEOUT_MS: envInt(10, 120_000).default(5_000),
  PROVIDER_RETRIES: envInt(0, 10).default(0),
  REDIS_URL: envRedisUrl().default('redis://127.0.0.1:6379'),
  REDIS_COMMAND_TIMEOUT_MS: envRedisCommandTimeoutMs(),
  IDEMPOTENCY_ENABLED: envBool().default(true),
  IDEMPOTENCY_IN_FLIGHT: z
    .enum([InFlightMode.Raise, InFlightMode.Wait, InFlightMode.Run], {
      error: "must be 'raise', 'wait' or 'run'",
    })
    .default(InFlightMode.Raise),
  IDEMPOTENCY_TTL_MS: envInt(IDEMPOTENCY_LIMITS.ttlMs.min, IDEMPOTENCY_LIMITS.ttlMs.max).default(3_600_000),
  IDEMPOTENCY_LEASE_MS: envInt(IDEMPOTENCY_LIMITS.leaseMs.min, MAX_LEASE_MS).default(
    IDEMPOTENCY_DEFAULTS.leaseMs,
  ),
  IDEMPOTENCY_RENEW_LEASE: envBool().default(IDEMPOTENCY_DEFAULTS.renewLease),
  IDEMPOTENCY_ON_STORE_UNAVAILABLE: z
    .enum([StoreUnavailablePolicy.FailClosed, StoreUnavailablePolicy.FailOpen], {
      error: "must be 'fail-closed' or 'fail-open'",
    })
    .default(IDEMPOTENCY_DEFAULTS.onStoreUnavailable),
  IDEMPOTENCY_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:{}-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_.:{}-]')
    .default(REDIS_STORE_DEFAULTS.keyPrefix),
  IDEMPOTENCY_COMMAND_TIMEOUT_MS: envInt(
    REDIS_STORE_LIMITS.commandTimeoutMs.min,
    REDIS_STORE_LIMITS.commandTimeoutMs.max,
  ).default(REDIS_STORE_DEFAULTS.commandTimeoutMs),
  ...inboundEnv(),
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
export interface PaymentsConfig extends ListenConfig, InboundConfig {
  /** `PAYMENTS_PORT` (default 3002); `HOST` (default `127.0.0.1`: internal); `DRAIN_TIMEOUT_MS`. */
  readonly port: number;
  /** `INTERNAL_TOKEN` (required): what orders must send. */
  readonly internalToken: string;
  /** `PROVIDER_URL` (default `http://127.0.0.1:3003`), `PROVIDER_TIMEOUT_MS` (5000), `PROVIDER_RETRIES` (0). */
  readonly provider: { readonly url: string; readonly timeoutMs: number; readonly retries: number };
  /** `REDIS_URL` (default `redis://127.0.0.1:6379`): the Redis of the idempotency store. */
  readonly redisUrl: string;
  /**
   * `REDIS_COMMAND_TIMEOUT_MS` (default 2000): the client's ioredis `commandTimeout`, so no command waits on a
   * stalled Redis longer. Keep it above `IDEMPOTENCY_COMMAND_TIMEOUT_MS`: the store's own bound then decides
   * first, with its `idempotency_store_unavailable`.
   */
  readonly redisCommandTimeoutMs: number;
  readonly idempotency: IdempotencySettings;
}

/** DI token of the {@link PaymentsConfig}. */
export const PAYMENTS_CONFIG = Symbol('PAYMENTS_CONFIG');

/** Validates the environment into the {@link PaymentsConfig} (never echoing `INTERNAL_TOKEN` back in its errors). */
export const loadPaymentsConfig: ConfigLoader<PaymentsConfig> = configLoader(
  EnvSchema,
  { service: 'payments', portVariable: 'PAYMENTS_PORT', secrets: new Set(['INTERNAL_TOKEN']) },
  (e) => ({
    ...inboundConfigOf(e),
    internalToken: e.INTERNAL_TOKEN,
    provider: { url: e.PROVIDER_URL, timeoutMs: e.PROVIDER_TIMEOUT_MS, retries: e.PROVIDER_RETRIES },
    redisUrl: e.REDIS_URL,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
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
  }),
);
