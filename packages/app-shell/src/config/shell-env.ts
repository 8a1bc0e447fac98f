import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from '../logging/shell-logger.js';
import type { TraceExportConfig } from '../otel/trace-export.js';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from '../server-limits.js';
import { envBool, envHost, envInt, envHttpUrl } from './env-validation.js';
import { envAdminToken } from './token-env.js';

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
