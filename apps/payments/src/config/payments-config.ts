import { REDIS_STORE_DEFAULTS, REDIS_STORE_LIMITS } from '@retry-safe/idempotency/redis';
import {
  configLoader,
  envHttpUrl,
  envInt,
  envInternalToken,
  envPort,
  envRedisCommandTimeoutMs,
  envRedisUrl,
  idempotencyEnv,
  inboundConfigOf,
  inboundEnv,
  shellEnv,
  type ConfigLoader,
  type IdempotencySettings,
  type InboundConfig,
  type ListenConfig,
} from '@retry-safe/app-shell/config';
import { z } from 'zod';

/**
 * The coordinator's settings, each one an `IDEMPOTENCY_*` variable (so scenarios can compare designs), declared once
 * in the shell: `IDEMPOTENCY_ENABLED` (false is the unprotected design: every call charges), `IDEMPOTENCY_IN_FLIGHT`
 * (`raise`), `IDEMPOTENCY_TTL_MS` (an hour: how long a Charge is replayed), `IDEMPOTENCY_LEASE_MS` (30 s, at most
 * an hour: how long a crashed charge blocks its key), `IDEMPOTENCY_RENEW_LEASE` (renewed while the provider call
 * runs), `IDEMPOTENCY_ON_STORE_UNAVAILABLE` (`fail-closed`: 503), `IDEMPOTENCY_KEY_PREFIX` (`idem:`, the records in
 * Redis) and `IDEMPOTENCY_COMMAND_TIMEOUT_MS` (the Redis store's bound of every call, 1000).
 */
export const PAYMENTS_IDEMPOTENCY = idempotencyEnv(
  [
    'enabled',
    'inFlight',
    'ttlMs',
    'leaseMs',
    'renewLease',
    'onStoreUnavailable',
    'keyPrefix',
    'commandTimeoutMs',
  ],
  {
    commandTimeoutMs: {
      ...REDIS_STORE_LIMITS.commandTimeoutMs,
      default: REDIS_STORE_DEFAULTS.commandTimeoutMs,
    },
  },
);

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
  ...PAYMENTS_IDEMPOTENCY.env,
  ...inboundEnv(),
});

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
  /** The `IDEMPOTENCY_*` settings ({@link PAYMENTS_IDEMPOTENCY}). */
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
    idempotency: PAYMENTS_IDEMPOTENCY.configOf(e),
  }),
);
