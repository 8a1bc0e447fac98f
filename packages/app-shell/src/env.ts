import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from './logging/shell-logger.js';
import type { TraceExportConfig } from './otel/trace-export.js';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';

/** An integer variable in `[min, max]` (coerced from the string), with messages that name the range. */
export function envInt(min: number, max: number) {
  return z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
}

/** A TCP port variable (1-65535). */
export function envPort() {
  return envInt(1, 65_535);
}

/** A boolean variable: `true`/`false` (and zod's other stringbool spellings). */
export function envBool() {
  return z.stringbool({ error: "must be 'true' or 'false'" });
}

/** An http(s) URL variable, without its trailing slashes (callers append paths). */
export function envHttpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/**
 * A comma-separated list of http(s) URLs (the replicas of one service, used round robin), at least one, each
 * without its trailing slashes; `defaultUrl` when unset.
 */
export function envHttpUrls(defaultUrl: string) {
  return z
    .string()
    .default(defaultUrl)
    .transform((list) => list.split(',').map((url) => url.trim()))
    .pipe(z.array(envHttpUrl()).min(1, 'needs at least one URL'));
}

/** A `redis://` or `rediss://` URL variable. */
export function envRedisUrl() {
  return z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });
}

/** A comma-separated list of `redis://` or `rediss://` URLs (Redis Cluster nodes), empty when unset. */
export function envRedisNodes() {
  return z
    .string()
    .optional()
    .transform((list) =>
      (list ?? '')
        .split(',')
        .map((node) => node.trim())
        .filter((node) => node !== ''),
    )
    .pipe(z.array(envRedisUrl()));
}

// On Redis Cluster only the part between the first `{` and the next `}` is hashed: a prefix carrying one puts every
// key under it in one slot, as the multi-key scripts of a BullMQ queue need.
const HASH_TAG = /\{[^{}]+\}/;

/** True when `prefix` carries a Redis Cluster hash tag (`{invoices}`). */
export function hasHashTag(prefix: string): boolean {
  return HASH_TAG.test(prefix);
}

/** A BullMQ key prefix: 1-`maxLength` letters, digits, `_ . -`, and at most one `{hash tag}`. */
export function envBullmqPrefix(maxLength: number) {
  return z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9_.{}-]{1,${maxLength}}$`),
      `must be 1-${maxLength} letters, digits, _ . - or a {hash tag}`,
    )
    .refine(
      (prefix) => !/[{}]/.test(prefix.replace(HASH_TAG, '')),
      'braces must enclose one non-empty hash tag',
    );
}

/** The message for a Cluster without a hash tag in the queue prefix, or `undefined` when the pair is valid. */
export function clusterPrefixProblem(clusterNodes: readonly string[], prefix: string): string | undefined {
  return clusterNodes.length > 0 && !hasHashTag(prefix)
    ? 'must contain a {hash tag} (e.g. {invoices}) when REDIS_CLUSTER_NODES is set'
    : undefined;
}

/** An interface address to listen on (`HOST`): an IPv4 or IPv6 literal, e.g. `127.0.0.1`, `0.0.0.0`, `::`. */
export function envHost() {
  return z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address, e.g. 127.0.0.1 or 0.0.0.0' });
}

/** Shortest `INTERNAL_TOKEN` accepted. */
export const MIN_INTERNAL_TOKEN_LENGTH = 32;

/**
 * `INTERNAL_TOKEN`: the credential the gateway and orders send to orders and payments. Required: a service without
 * one refuses to start rather than trust every caller.
 */
export function envInternalToken() {
  return z
    .string({
      error:
        'is required: the shared internal credential the gateway and orders send to orders and payments ' +
        `(at least ${MIN_INTERNAL_TOKEN_LENGTH} characters of [A-Za-z0-9-._~+/]; e.g. \`openssl rand -hex 32\`)`,
    })
    .regex(
      new RegExp(`^[A-Za-z0-9\\-._~+/]{${MIN_INTERNAL_TOKEN_LENGTH},}$`),
      `must be at least ${MIN_INTERNAL_TOKEN_LENGTH} characters of [A-Za-z0-9-._~+/]`,
    );
}

/**
 * `ADMIN_TOKEN`: what every `/__*` route demands when set (`Authorization: Bearer <ADMIN_TOKEN>`); required with
 * `FAULTS_ENABLED=true` on a `HOST` that is not loopback.
 */
export function envAdminToken() {
  return z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9\\-._~+/]{${MIN_INTERNAL_TOKEN_LENGTH},}$`),
      `must be at least ${MIN_INTERNAL_TOKEN_LENGTH} characters of [A-Za-z0-9-._~+/]`,
    );
}

/** `OTEL_BSP_SCHEDULE_DELAY` by default (the OpenTelemetry SDK's own default). */
export const DEFAULT_TRACE_BATCH_DELAY_MS = 5_000;

/** Longest `DRAIN_TIMEOUT_MS` accepted. */
export const MAX_DRAIN_TIMEOUT_MS = 120_000;
/** `DRAIN_TIMEOUT_MS` by default: compose's `stop_grace_period` (15 s) leaves it a margin. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** `LOG_LEVEL`: one of pino's level names. */
export function envLogLevel() {
  return z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` });
}

/**
 * The variables the shell itself reads, spread into every app's schema: `HOST` (the interface to listen on),
 * `DRAIN_TIMEOUT_MS` (how long SIGTERM waits for in-flight requests), `METRICS_HOST` and `METRICS_PORT` (where
 * `GET /metrics` is served when not on the app's port), `LOG_LEVEL` (default `info`), `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_BSP_SCHEDULE_DELAY` and `TRACES_SAMPLE_RATIO` (where and how often spans are exported, and the share of
 * traces recorded; none without an endpoint), `FAULTS_ENABLED` (the scenario routes), and what one client may hold
 * ({@link ServerLimits}: `HEADERS_TIMEOUT_MS` 10000, `REQUEST_TIMEOUT_MS` 15000, `KEEP_ALIVE_TIMEOUT_MS` 5000,
 * `MAX_CONNECTIONS` 1000), `ADMIN_HOST` and `ADMIN_PORT` (where the `/__*` routes are served when not on the app's
 * port). Read them back with {@link shellConfigOf}.
 * @param defaultHost - `127.0.0.1` for internal services, `0.0.0.0` for the public edge.
 * @param defaultMetricsPort - a port of its own for `/metrics` (the public edge's); unset: the app's port.
 * @param defaultAdminPort - a port of its own for the `/__*` routes (the public edge's); unset: the app's port.
 */
export function shellEnv(defaultHost: string, defaultMetricsPort?: number, defaultAdminPort?: number) {
  return {
    // Tracing: spans are exported only when an endpoint is set (the telemetry hook starts the SDK either way).
    OTEL_EXPORTER_OTLP_ENDPOINT: envHttpUrl().optional(),
    OTEL_BSP_SCHEDULE_DELAY: envInt(1, 60_000).default(DEFAULT_TRACE_BATCH_DELAY_MS),
    TRACES_SAMPLE_RATIO: z.coerce
      .number({ error: 'must be a number' })
      .min(0, 'must be between 0 and 1')
      .max(1, 'must be between 0 and 1')
      .default(1),
    HOST: envHost().default(defaultHost),
    DRAIN_TIMEOUT_MS: envInt(0, MAX_DRAIN_TIMEOUT_MS).default(DEFAULT_DRAIN_TIMEOUT_MS),
    METRICS_HOST: envHost().default('127.0.0.1'),
    METRICS_PORT:
      defaultMetricsPort === undefined
        ? envInt(0, 65_535).optional()
        : envInt(0, 65_535).default(defaultMetricsPort),
    ADMIN_HOST: envHost().default('127.0.0.1'),
    ADMIN_PORT:
      defaultAdminPort === undefined
        ? envInt(0, 65_535).optional()
        : envInt(0, 65_535).default(defaultAdminPort),
    LOG_LEVEL: envLogLevel().default('info'),
    FAULTS_ENABLED: envBool().default(false),
    HEADERS_TIMEOUT_MS: envInt(100, 120_000).default(DEFAULT_SERVER_LIMITS.headersTimeoutMs),
    REQUEST_TIMEOUT_MS: envInt(100, 600_000).default(DEFAULT_SERVER_LIMITS.requestTimeoutMs),
    KEEP_ALIVE_TIMEOUT_MS: envInt(100, 600_000).default(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs),
    MAX_CONNECTIONS: envInt(1, 1_000_000).default(DEFAULT_SERVER_LIMITS.maxConnections),
    ADMIN_TOKEN: envAdminToken().optional(),
    RETRY_SAFE_DEMO: z.enum(['0', '1', 'true', 'false'], { error: "must be '1' or '0'" }).optional(),
  };
}

/** What {@link shellEnv} reads, as every app's config carries it. */
export interface ShellConfig {
  /** `HOST`: the interface to listen on. */
  readonly host: string;
  /** `DRAIN_TIMEOUT_MS` (default 10000): how long SIGTERM waits for in-flight requests before cutting them. */
  readonly drainTimeoutMs: number;
  /** `METRICS_HOST` (default 127.0.0.1) and `METRICS_PORT` (0: a free port): `/metrics` off the app's port. */
  readonly metricsListener?: { readonly host: string; readonly port: number };
  /**
   * `ADMIN_HOST` (default 127.0.0.1) and `ADMIN_PORT` (0: a free port): the `/__*` routes on a listener of their own,
   * and never on the app's port (the gateway's default: its port is public). Unset: on the app's port.
   */
  readonly adminListener?: { readonly host: string; readonly port: number };
  /** `LOG_LEVEL` (default `info`): the least severe level written. */
  readonly logLevel: LogLevel;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` (unset: no span is recorded), `OTEL_BSP_SCHEDULE_DELAY`, `TRACES_SAMPLE_RATIO`. */
  readonly traceExport?: TraceExportConfig;
  /** `FAULTS_ENABLED` (default false): mounts the fault-injection rules and the `/__faults` routes. */
  readonly faultsEnabled: boolean;
  /** `HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`, `KEEP_ALIVE_TIMEOUT_MS`, `MAX_CONNECTIONS`: what one client may hold. */
  readonly serverLimits: ServerLimits;
  /** `ADMIN_TOKEN` (default none): when set, every `/__*` route demands `Authorization: Bearer <ADMIN_TOKEN>`. */
  readonly adminToken?: string;
  /** `RETRY_SAFE_DEMO=1` (default off): a declared demo, which may use the published demo secrets. */
  readonly demo: boolean;
}

/** What {@link bootstrap} needs of every app's config. */
export interface ListenConfig extends ShellConfig {
  /** The app's port (`GATEWAY_PORT`, `ORDERS_PORT`, ...). */
  readonly port: number;
}

/** The {@link ShellConfig} of an environment parsed with {@link shellEnv}'s variables. */
export function shellConfigOf(e: {
  readonly HOST: string;
  readonly DRAIN_TIMEOUT_MS: number;
  readonly METRICS_HOST: string;
  readonly METRICS_PORT?: number | undefined;
  readonly ADMIN_HOST?: string;
  readonly ADMIN_PORT?: number | undefined;
  readonly LOG_LEVEL: LogLevel;
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  readonly OTEL_BSP_SCHEDULE_DELAY?: number;
  readonly TRACES_SAMPLE_RATIO?: number;
  readonly FAULTS_ENABLED: boolean;
  readonly HEADERS_TIMEOUT_MS?: number;
  readonly REQUEST_TIMEOUT_MS?: number;
  readonly KEEP_ALIVE_TIMEOUT_MS?: number;
  readonly MAX_CONNECTIONS?: number;
  readonly ADMIN_TOKEN?: string | undefined;
  readonly RETRY_SAFE_DEMO?: string | undefined;
}): ShellConfig {
  return {
    host: e.HOST,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    ...(e.METRICS_PORT === undefined
      ? {}
      : { metricsListener: { host: e.METRICS_HOST, port: e.METRICS_PORT } }),
    ...(e.ADMIN_PORT === undefined
      ? {}
      : { adminListener: { host: e.ADMIN_HOST ?? '127.0.0.1', port: e.ADMIN_PORT } }),
    ...(e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? {}
      : {
          traceExport: {
            endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
            scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY ?? DEFAULT_TRACE_BATCH_DELAY_MS,
            sampleRatio: e.TRACES_SAMPLE_RATIO ?? 1,
          },
        }),
    faultsEnabled: e.FAULTS_ENABLED,
    serverLimits: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.headersTimeoutMs,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.requestTimeoutMs,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs,
      maxConnections: e.MAX_CONNECTIONS ?? DEFAULT_SERVER_LIMITS.maxConnections,
    },
    ...(e.ADMIN_TOKEN === undefined ? {} : { adminToken: e.ADMIN_TOKEN }),
    demo: e.RETRY_SAFE_DEMO === '1' || e.RETRY_SAFE_DEMO === 'true',
  };
}

/** A `postgres://` or `postgresql://` URL variable (node-postgres' connection string). */
export function envPostgresUrl() {
  return z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' });
}

/** The environment is invalid; `message` names every offending variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/** Options of {@link parseEnv}. */
export interface ParseEnvOptions {
  /** Opens the error message: `<service>: invalid environment`. */
  readonly service: string;
  /** Variables whose value must never be echoed back in the message (tokens). @default none */
  readonly secrets?: ReadonlySet<string>;
}

/**
 * Validates `env` against `schema`, once, at start-up.
 * @throws {@link ConfigError} listing every invalid variable, one per line, with the value it got (secrets
 * excepted), the zod error as `cause`.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
  options: ParseEnvOptions,
): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const value = options.secrets?.has(name)
        ? ''
        : `=${JSON.stringify(redactCredentials(env[name]) ?? null)}`;
      return `  ${name}${value}: ${issue.message}`;
    });
    throw new ConfigError(`${options.service}: invalid environment\n${lines.join('\n')}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * `value` with the user information of any `scheme://user:password@` in it replaced by `***` (a user alone may be
 * a password, in old Redis URLs), so a `REDIS_URL` with credentials can be named in errors and logs.
 */
export function redactCredentials(value: string | undefined): string | undefined {
  return value?.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
