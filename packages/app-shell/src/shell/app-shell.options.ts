import type { InjectionToken, Type } from '@nestjs/common';
import type { AdminListenerOptions } from '../admin/admin-listener.js';
import type { Journal } from '../admin/request-journal.js';
import type { CallerAuthenticator } from '../auth/caller-authentication.js';
import type { RuntimeSettingsDefinition } from '../admin/runtime-settings.js';
import type { ReadinessCheck } from '../health/health.controller.js';
import type { HttpMetrics } from '../telemetry/metrics.js';
import type { MetricsListenerOptions } from '../telemetry/metrics-listener.js';
import type { ProblemExceptionFilterOptions } from '../http/problem-exception.filter.js';
import type { RequestContextOptions } from '../http/request-context.js';
import type { RedisModuleOptions } from '../redis.js';
import type { LogLevel, ShellLoggerOptions } from '../logging/shell-logger.js';

/** Largest JSON body by default: Express' own default (100 kB), for apps without a `BODY_LIMIT_BYTES`. */
export const DEFAULT_BODY_LIMIT_BYTES = 102_400;

/**
 * What an app hands the shell: its validated config, what its errors become, how its requests are identified, and
 * optionally its runtime settings. Everything else (filter, pipe, request context, JSON body, metrics, health,
 * fault injection, scenario routes) is the shell's, the same in every app.
 * @typeParam C - the app's config. @typeParam S - its runtime settings.
 */
export interface AppShellOptions<C, S extends object = never> {
  /** The app's validated config, injectable everywhere as {@link AppShellOptions.configToken}. */
  readonly config: C;
  /** The DI token apps inject their config with, e.g. `GATEWAY_CONFIG`. */
  readonly configToken: InjectionToken;
  /** `FAULTS_ENABLED`: mounts `/__faults`, `/__config` and `/__requests`, and turns the journal on. */
  readonly faultsEnabled: boolean;
  /** The exception filter's options: the service's name and its own code map. */
  readonly problems: ProblemExceptionFilterOptions;
  /** Request ids, deadlines and the access log; its `service` is every log line's `service`. */
  readonly requestContext: RequestContextOptions;
  /**
   * The app's logs (`LOG_LEVEL`, from the app's config): {@link bootstrap} makes them the app's logger.
   * @default level `info`, on stdout
   */
  readonly logging?: {
    readonly level?: LogLevel;
    /** Where lines go instead of stdout (tests). */
    readonly destination?: ShellLoggerOptions['destination'];
  };
  /**
   * Who may call the app, checked before the body is parsed (probes, metrics and scenario routes excepted): the
   * gateway's bearer tokens, an internal service's `INTERNAL_TOKEN`. @default anyone (provider-sim, the worker)
   */
  readonly authenticate?: CallerAuthenticator;
  /** `ADMIN_TOKEN`: when set, every `/__*` route demands `Authorization: Bearer <ADMIN_TOKEN>`. @default none */
  readonly adminToken?: string | undefined;
  /** `BODY_LIMIT_BYTES`: larger JSON bodies get 413. @default {@link DEFAULT_BODY_LIMIT_BYTES} */
  readonly bodyLimitBytes?: number;
  /** The app's metrics class (a subclass of {@link HttpMetrics}). @default HttpMetrics */
  readonly metrics?: Type<HttpMetrics>;
  /**
   * `METRICS_HOST`/`METRICS_PORT`: `GET /metrics` on a listener of its own instead of the app's port (the gateway's
   * default: its port is public). @default the app's port (internal services listen on 127.0.0.1)
   */
  readonly metricsListener?: MetricsListenerOptions | undefined;
  /**
   * `ADMIN_HOST`/`ADMIN_PORT`: with `FAULTS_ENABLED=true`, the `/__*` routes on a listener of their own, and a 404
   * on the app's port (the gateway's default: its port is public). @default the app's port
   */
  readonly adminListener?: AdminListenerOptions | undefined;
  /** The Redis the app needs (`REDIS_URL`): the client, and readiness depends on it. @default none */
  readonly redis?: RedisModuleOptions;
  /**
   * Readiness checks besides Redis', built from the app's own providers (e.g. `{ inject: [ORDERS_DB], useFactory:
   * (db) => [{ name: 'postgres', check: ... }] }`); `GET /health` reports each by name. @default none
   */
  readonly readiness?: {
    readonly inject: readonly InjectionToken[];
    readonly useFactory: (...deps: never[]) => readonly ReadinessCheck[];
  };
  /** What a scenario may switch with `PUT /__config`; without it the app has no `/__config`. */
  readonly settings?: RuntimeSettingsDefinition<S>;
  /**
   * The journal `GET /__requests` serves, when the app's work is not HTTP requests (the worker's deliveries); built
   * with `{ enabled: faultsEnabled }`. @default the request journal
   */
  readonly journal?: new (options: { enabled: boolean }) => Journal<{ readonly seq: number }>;
}
