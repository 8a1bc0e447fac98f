import {
  IDEMPOTENCY_DEFAULTS,
  IDEMPOTENCY_LIMITS,
  InFlightMode,
  StoreUnavailablePolicy,
} from '@retry-safe/idempotency';
import { REDIS_STORE_DEFAULTS } from '@retry-safe/idempotency/redis';
import { z } from 'zod';
import { envBool, envInt, envOneOf } from './env-validation.js';
import { envKeyPrefix } from './redis-env.js';

/**
 * The idempotency settings a service reads from its `IDEMPOTENCY_*` variables, as its config carries them. Each is
 * declared once, here: its variable, its range and its default, for the environment and for `PUT /__config` alike.
 */
export interface IdempotencySettings {
  /** `IDEMPOTENCY_ENABLED` (default true); `false` is the unprotected design: every call runs its action. */
  readonly enabled: boolean;
  /** `IDEMPOTENCY_IN_FLIGHT` (default `raise`): what a duplicate does while the first request runs. */
  readonly inFlight: InFlightMode;
  /** `IDEMPOTENCY_TTL_MS` (default 3600000, 1 hour): how long a result is replayed. */
  readonly ttlMs: number;
  /** `IDEMPOTENCY_LEASE_MS` (default 30000): how long a crashed owner blocks its key. */
  readonly leaseMs: number;
  /** `IDEMPOTENCY_RENEW_LEASE` (default true): renew the lease while the action runs. */
  readonly renewLease: boolean;
  /** `IDEMPOTENCY_ON_STORE_UNAVAILABLE` (default `fail-closed`): refuse (503), or run unprotected (`fail-open`). */
  readonly onStoreUnavailable: StoreUnavailablePolicy;
  /** `IDEMPOTENCY_KEY_PREFIX` (default `idem:`): prefix of the records' Redis keys. */
  readonly keyPrefix: string;
  /** `IDEMPOTENCY_COMMAND_TIMEOUT_MS` (the store's default, 1000): the bound of every call of the store. */
  readonly commandTimeoutMs: number;
}

/** One of the {@link IdempotencySettings}. */
export type IdempotencySetting = keyof IdempotencySettings;

/** The variable of each setting. */
export const IDEMPOTENCY_VARIABLES = {
  enabled: 'IDEMPOTENCY_ENABLED',
  inFlight: 'IDEMPOTENCY_IN_FLIGHT',
  ttlMs: 'IDEMPOTENCY_TTL_MS',
  leaseMs: 'IDEMPOTENCY_LEASE_MS',
  renewLease: 'IDEMPOTENCY_RENEW_LEASE',
  onStoreUnavailable: 'IDEMPOTENCY_ON_STORE_UNAVAILABLE',
  keyPrefix: 'IDEMPOTENCY_KEY_PREFIX',
  commandTimeoutMs: 'IDEMPOTENCY_COMMAND_TIMEOUT_MS',
} as const satisfies Record<IdempotencySetting, `IDEMPOTENCY_${string}`>;

type VariableOf<K extends IdempotencySetting> = (typeof IDEMPOTENCY_VARIABLES)[K];

/**
 * Longest `IDEMPOTENCY_LEASE_MS` a service accepts: an hour, stricter than the coordinator's own limit (a crashed
 * request must not block its key for days).
 */
export const MAX_SERVICE_LEASE_MS = 3_600_000;

/** `IDEMPOTENCY_TTL_MS` by default: an hour, in every service (orders keeps its records as long as payments). */
export const DEFAULT_SERVICE_TTL_MS = 3_600_000;

/** What differs between services: the bounds their store and their work set. */
export interface IdempotencyEnvOptions {
  /**
   * Range and default of `IDEMPOTENCY_COMMAND_TIMEOUT_MS`: the store's own (`REDIS_STORE_LIMITS` with
   * `REDIS_STORE_DEFAULTS`, or the Postgres store's). Required when the service reads `commandTimeoutMs`.
   */
  readonly commandTimeoutMs?: { readonly min: number; readonly max: number; readonly default: number };
  /** Shortest `IDEMPOTENCY_LEASE_MS` (a service whose action always takes longer). @default the coordinator's */
  readonly minLeaseMs?: number;
}

/** A setting's rule, from which both its variable's schema and its `PUT /__config` field's are made. */
type Rule =
  | { readonly kind: 'bool'; readonly default: boolean }
  | { readonly kind: 'int'; readonly min: number; readonly max: number; readonly default: number }
  | { readonly kind: 'oneOf'; readonly values: readonly [string, ...string[]]; readonly default: string }
  | { readonly kind: 'keyPrefix'; readonly default: string };

function ruleOf(setting: IdempotencySetting, options: IdempotencyEnvOptions): Rule {
  const { ttlMs, leaseMs } = IDEMPOTENCY_LIMITS;
  switch (setting) {
    case 'enabled':
      return { kind: 'bool', default: true };
    case 'inFlight':
      return {
        kind: 'oneOf',
        values: [InFlightMode.Raise, InFlightMode.Wait, InFlightMode.Run],
        default: InFlightMode.Raise,
      };
    case 'ttlMs':
      return { kind: 'int', min: ttlMs.min, max: ttlMs.max, default: DEFAULT_SERVICE_TTL_MS };
    case 'leaseMs':
      return {
        kind: 'int',
        min: options.minLeaseMs ?? leaseMs.min,
        max: MAX_SERVICE_LEASE_MS,
        default: IDEMPOTENCY_DEFAULTS.leaseMs,
      };
    case 'renewLease':
      return { kind: 'bool', default: IDEMPOTENCY_DEFAULTS.renewLease };
    case 'onStoreUnavailable':
      return {
        kind: 'oneOf',
        values: [StoreUnavailablePolicy.FailClosed, StoreUnavailablePolicy.FailOpen],
        default: IDEMPOTENCY_DEFAULTS.onStoreUnavailable,
      };
    case 'keyPrefix':
      return { kind: 'keyPrefix', default: REDIS_STORE_DEFAULTS.keyPrefix };
    case 'commandTimeoutMs':
      if (options.commandTimeoutMs === undefined) {
        throw new TypeError(
          'idempotencyEnv: commandTimeoutMs needs the range of the store (options.commandTimeoutMs)',
        );
      }
      return { kind: 'int', ...options.commandTimeoutMs };
  }
}

// The variable: a string of the environment, coerced, with its default.
function variableSchema(rule: Rule): z.ZodType {
  switch (rule.kind) {
    case 'bool':
      return envBool().default(rule.default);
    case 'int':
      return envInt(rule.min, rule.max).default(rule.default);
    case 'oneOf':
      return envOneOf(rule.values).default(rule.default);
    case 'keyPrefix':
      return envKeyPrefix().default(rule.default);
  }
}

// The field of `PUT /__config`: a JSON value with the same range, left out to keep the start-up value.
function overrideSchema(rule: Rule): z.ZodType {
  switch (rule.kind) {
    case 'bool':
      return z.boolean().optional();
    case 'int':
      return z.number().int().min(rule.min).max(rule.max).optional();
    case 'oneOf':
      return z.enum(rule.values).optional();
    case 'keyPrefix':
      return envKeyPrefix().optional();
  }
}

/** The `IDEMPOTENCY_*` variables of `F`, to spread into an app's environment schema. */
export type IdempotencyEnv<F extends IdempotencySetting> = {
  readonly [K in F as VariableOf<K>]: z.ZodType<IdempotencySettings[K]>;
};

/** The `PUT /__config` fields of `O`, to spread into an app's settings schema. */
export type IdempotencyOverrides<O extends IdempotencySetting> = {
  readonly [K in O]: z.ZodType<IdempotencySettings[K] | undefined>;
};

/** The idempotency settings `F` of one service: its variables, how to read them back, and its `PUT /__config` fields. */
export interface IdempotencyEnvPiece<F extends IdempotencySetting> {
  /** The variables, e.g. `{ IDEMPOTENCY_ENABLED, IDEMPOTENCY_LEASE_MS }`: spread them into the app's schema. */
  readonly env: IdempotencyEnv<F>;
  /** The settings of an environment parsed with {@link IdempotencyEnvPiece.env}. */
  configOf(e: { readonly [K in F as VariableOf<K>]: IdempotencySettings[K] }): Pick<IdempotencySettings, F>;
  /**
   * The fields of `PUT /__config` for those of the settings a scenario may switch on a running process: each the
   * same setting as its variable, with the same range, optional.
   */
  overrides<O extends F>(switchable: readonly O[]): IdempotencyOverrides<O>;
}

/**
 * The `IDEMPOTENCY_*` settings `fields` of a service, each declared once (see {@link IdempotencySettings} for the
 * variables and their defaults): `IDEMPOTENCY_IN_FLIGHT` is one of `raise`/`wait`/`run`, `IDEMPOTENCY_TTL_MS`
 * within the coordinator's limits, `IDEMPOTENCY_LEASE_MS` from the coordinator's floor (or
 * {@link IdempotencyEnvOptions.minLeaseMs}) to {@link MAX_SERVICE_LEASE_MS}, `IDEMPOTENCY_KEY_PREFIX` a Redis key
 * prefix (`envKeyPrefix`), `IDEMPOTENCY_COMMAND_TIMEOUT_MS` within the store's range.
 * @example
 * const IDEMPOTENCY = idempotencyEnv(['enabled', 'leaseMs'], {});
 * const EnvSchema = z.object({ ...shellEnv('127.0.0.1'), ...IDEMPOTENCY.env });
 * // config: { idempotency: IDEMPOTENCY.configOf(e) }; PUT /__config: z.strictObject(IDEMPOTENCY.overrides(['enabled']))
 */
export function idempotencyEnv<const F extends IdempotencySetting>(
  fields: readonly F[],
  options: IdempotencyEnvOptions = {},
): IdempotencyEnvPiece<F> {
  const env = Object.fromEntries(
    fields.map((field) => [IDEMPOTENCY_VARIABLES[field], variableSchema(ruleOf(field, options))]),
  );
  return {
    env: env as IdempotencyEnv<F>,
    configOf: (e) => {
      const values = e as Record<string, unknown>;
      return Object.fromEntries(fields.map((field) => [field, values[IDEMPOTENCY_VARIABLES[field]]])) as Pick<
        IdempotencySettings,
        F
      >;
    },
    overrides: (switchable) =>
      Object.fromEntries(
        switchable.map((field) => [field, overrideSchema(ruleOf(field, options))]),
      ) as IdempotencyOverrides<(typeof switchable)[number]>,
  };
}
