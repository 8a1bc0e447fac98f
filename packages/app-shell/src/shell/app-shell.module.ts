import {
  Global,
  Module,
  type DynamicModule,
  type InjectionToken,
  type MiddlewareConsumer,
  type NestModule,
  type Provider,
} from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import type { Cluster, Redis } from 'ioredis';
import { ADMIN_LISTENER_OPTIONS, AdminListener } from '../admin/admin-listener.js';
import { RequestJournal, RequestJournalController, SCENARIO_JOURNAL } from '../admin/request-journal.js';
import { RuntimeSettings } from '../admin/runtime-settings.js';
import { RuntimeSettingsController } from '../admin/runtime-settings.controller.js';
import {
  ADMIN_TOKEN,
  CALLER_AUTHENTICATOR,
  CallerAuthenticationMiddleware,
  type CallerAuthenticator,
} from '../auth/caller-authentication.js';
import { HealthController, READINESS_CHECKS, type ReadinessCheck } from '../health/health.controller.js';
import { ShutdownState } from '../health/shutdown-state.js';
import { JSON_BODY_OPTIONS, JsonBodyMiddleware } from '../http/json-body.js';
import { MetricsModule } from '../telemetry/metrics.module.js';
import { ProblemExceptionFilter } from '../http/problem-exception.filter.js';
import { REDIS_CLIENT, RedisModule, pingRedis } from '../redis.js';
import { REQUEST_CONTEXT_OPTIONS, RequestContextMiddleware } from '../http/request-context.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import type { ShellLoggerOptions } from '../logging/shell-logger.js';
import { DEFAULT_BODY_LIMIT_BYTES, type AppShellOptions } from './app-shell.options.js';

/** Paths neither counted nor faulted by fault injection, nor journaled: probes, metrics, scenario controls. */
export const SHELL_PATHS = ['/health', '/health/live', '/metrics', '/__config', '/__requests'] as const;

/**
 * DI token of the app's {@link ShellLoggerOptions}: {@link bootstrap} builds the app's logger from them (a test app
 * that never asks builds none).
 */
export const LOGGING_OPTIONS = Symbol('LOGGING_OPTIONS');

/**
 * What every app here is made of besides its features. `AppModule.forRoot(config)` imports
 * `AppShellModule.forRoot({...})` next to its feature modules, and gets:
 * - its config under its token, the problem+json filter with its code map, the strict validation pipe;
 * - request context (ids, deadlines, one JSON access-log line per request), caller authentication (`authenticate`),
 *   then the JSON body parser;
 * - its logs ({@link LOGGING_OPTIONS}: one JSON shape, `LOG_LEVEL`, the request id and trace ids on every line);
 * - metrics (`GET /metrics`), liveness (`GET /health/live`) and readiness (`GET /health`, on Redis if it has one);
 * - with `FAULTS_ENABLED=true` only: `/__faults`, `/__config` (its settings schema) and `/__requests`, on the
 *   admin listener when the app has one (`ADMIN_PORT`), never then on its own port;
 * - the shutdown order ({@link bootstrap}): readiness 503 and the HTTP drain, then features and queues stop in
 *   `onModuleDestroy`, Redis closes in `beforeApplicationShutdown`, databases in `onApplicationShutdown`.
 *
 * Fault injection is imported here, below the shell, so its middleware runs before the request context's (Nest
 * applies the deepest module's middleware first), as it did when each app wired both by hand. Not a
 * `ConfigurableModuleBuilder` module: which controllers and imports exist depends on the options (`FAULTS_ENABLED`,
 * a Redis, a settings schema), so they must be known when the module is built, not resolved later by a factory.
 */
@Global()
@Module({})
export class AppShellModule implements NestModule {
  static forRoot<C, S extends object = never>(options: AppShellOptions<C, S>): DynamicModule {
    const journal = new RequestJournal({ enabled: options.faultsEnabled });
    const scenarioJournal =
      options.journal === undefined ? journal : new options.journal({ enabled: options.faultsEnabled });
    const settings = options.settings === undefined ? [] : [new RuntimeSettings<S>(options.settings)];
    const exported: Provider[] = [
      { provide: options.configToken, useValue: options.config },
      {
        provide: JSON_BODY_OPTIONS,
        useValue: { limitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES },
      },
      { provide: REQUEST_CONTEXT_OPTIONS, useValue: options.requestContext },
      {
        provide: LOGGING_OPTIONS,
        useValue: {
          service: options.requestContext.service,
          level: options.logging?.level,
          destination: options.logging?.destination,
        } satisfies ShellLoggerOptions,
      },
      { provide: RequestJournal, useValue: journal },
      { provide: SCENARIO_JOURNAL, useValue: scenarioJournal },
      ...(scenarioJournal === journal
        ? []
        : [{ provide: scenarioJournal.constructor, useValue: scenarioJournal }]),
      ...settings.map((value) => ({ provide: RuntimeSettings, useValue: value })),
      readinessProvider(options.redis !== undefined, options.readiness),
      { provide: ShutdownState, useClass: ShutdownState },
    ];
    const providers: Provider[] = [
      { provide: APP_FILTER, useFactory: () => new ProblemExceptionFilter(options.problems) },
      { provide: APP_PIPE, useFactory: createValidationPipe },
      { provide: CALLER_AUTHENTICATOR, useValue: options.authenticate ?? ANYONE },
      { provide: ADMIN_TOKEN, useValue: options.adminToken },
      // Only with the routes it serves: without FAULTS_ENABLED there is no /__* route to move off the app's port.
      ...(options.faultsEnabled && options.adminListener !== undefined
        ? [{ provide: ADMIN_LISTENER_OPTIONS, useValue: options.adminListener }, AdminListener]
        : []),
      ...exported,
    ];
    const controllers = [
      HealthController,
      ...(options.faultsEnabled ? [RequestJournalController] : []),
      ...(options.faultsEnabled && settings.length > 0 ? [RuntimeSettingsController] : []),
    ];
    return {
      module: AppShellModule,
      imports: [
        FaultInjectionModule.forRoot({ enabled: options.faultsEnabled, ignorePaths: SHELL_PATHS }),
        MetricsModule.forRoot(options.metrics, options.metricsListener),
        ...(options.redis === undefined ? [] : [RedisModule.forRoot(options.redis)]),
      ],
      controllers,
      providers,
      exports: exported.map((provider) => (provider as { provide: InjectionToken }).provide),
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // Nest's own body parser is off (see SHELL_APP_OPTIONS): parsing runs here, after the request has an id, so
    // rejected bodies are logged and counted too.
    // Authentication comes before parsing: an unauthenticated caller gets 401 whatever its body (`{bad`, 40 kB).
    consumer
      .apply(RequestContextMiddleware, CallerAuthenticationMiddleware, JsonBodyMiddleware)
      .forRoutes('{*path}');
  }
}

const ANYONE: CallerAuthenticator = { authenticate: () => undefined };

function readinessProvider(withRedis: boolean, own: AppShellOptions<unknown>['readiness']): Provider {
  const inject = own?.inject ?? [];
  return {
    provide: READINESS_CHECKS,
    inject: withRedis ? [REDIS_CLIENT, ...inject] : [...inject],
    useFactory: (...deps: unknown[]): ReadinessCheck[] => {
      const checks = own?.useFactory(...((withRedis ? deps.slice(1) : deps) as never[])) ?? [];
      if (!withRedis) return [...checks];
      const redis = deps[0] as Redis | Cluster;
      return [{ name: 'redis', check: () => pingRedis(redis) }, ...checks];
    },
  };
}
