import type { DynamicModule, INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { ConfigError } from '../config/env-validation.js';
import type { ListenConfig } from '../config/shell-env.js';
import { ShutdownState } from '../health/shutdown-state.js';
import { exportTraces, flushTraces, isTracing } from '../otel/trace-export.js';
import { traceServerRequests } from '../otel/server-spans.js';
import { drainServer } from './drain.js';
import { applyServerLimits } from '../server-limits.js';
import { createNestLogger, type ShellLoggerOptions } from '../logging/shell-logger.js';
import { LOGGING_OPTIONS } from './app-shell.module.js';
import { SHELL_APP_OPTIONS, createShellHttpAdapter } from './shell-http-adapter.js';

/** The signals that start the drain: SIGTERM (orchestrators, `docker stop`), SIGINT (Ctrl-C). */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What `main.ts` hands {@link bootstrap}. @typeParam C - the app's validated config. */
export interface BootstrapOptions<C extends ListenConfig> {
  /** Reads and validates the environment, once (`() => loadGatewayConfig(process.env)`). */
  readonly loadConfig: () => C;
  /** The root module for that config (`(config) => AppModule.forRoot(config)`). */
  readonly module: (config: C) => DynamicModule;
  /** The first log line's fields besides `msg`, e.g. the designs in force. */
  readonly describe?: (config: C) => Record<string, unknown>;
  /** The log line once listening, e.g. `gateway listening`. */
  readonly listening: string;
  /** Sets the security headers of Nest's HTTP adapter (the public edge). @default false */
  readonly securityHeaders?: boolean;
  /**
   * The app is the public edge (the gateway): a client's `traceparent` does not make the request part of the
   * client's trace (nor decide its sampling); each request starts a trace of its own, linked to the client's.
   * @default false (a caller of an internal service is a hop of the chain)
   */
  readonly publicEdge?: boolean;
  /** Runs on the HTTP server before it listens, e.g. to answer parser errors with problems. */
  readonly configureServer?: (server: Server) => void;
}

/**
 * Starts an app: validates its environment, builds it with the shell's JSON logs (`LOG_LEVEL`), listens on `config.host:config.port`, and on
 * SIGTERM or SIGINT shuts it down once, in order ({@link shutdown}). A bad environment prints its message and
 * exits 1; any other start-up failure prints its stack.
 */
export function bootstrap<C extends ListenConfig>(options: BootstrapOptions<C>): void {
  start(options).catch((error: unknown) => {
    // A bad environment is the operator's to fix: its message says what; anything else deserves its stack.
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}

async function start<C extends ListenConfig>(options: BootstrapOptions<C>): Promise<void> {
  const config = options.loadConfig();
  // Nest's own start-up lines wait in a buffer until the app's logger exists (it is built from the shell's options).
  // On the shell's platform (Fastify), as the in-process test apps are (`shellPlatform`).
  const app = await NestFactory.create(options.module(config), createShellHttpAdapter(), {
    ...SHELL_APP_OPTIONS,
    bufferLogs: true,
  });
  const logger = createNestLogger(app.get<ShellLoggerOptions>(LOGGING_OPTIONS));
  app.useLogger(logger);
  app.flushLogs();
  if (config.demo) {
    logger.warn({
      msg: 'RETRY_SAFE_DEMO=1: THIS IS A DEMO. The published demo secrets are accepted; never run it in production',
    });
  }
  if (config.traceExport !== undefined && !(await exportTraces(config.traceExport))) {
    logger.warn({
      msg: 'OTEL_EXPORTER_OTLP_ENDPOINT is set but the telemetry hook is not loaded: no span is exported',
      hint: 'start with node --import @retry-safe/app-shell/otel',
    });
  }
  if (options.securityHeaders === true) app.useSecurityHeaders();
  applyServerLimits(app.getHttpServer(), config.serverLimits);
  options.configureServer?.(app.getHttpServer());
  // With the telemetry hook loaded: a server span per request (recorded once an exporter is attached).
  if (isTracing()) {
    traceServerRequests(app.getHttpServer(), undefined, { linkCaller: options.publicEdge === true });
  }
  let stopping: Promise<void> | undefined;
  for (const signal of SHUTDOWN_SIGNALS) {
    process.on(signal, () => {
      // A second signal while draining changes nothing: the drain is already bounded by its timeout.
      stopping ??= shutdown(app, config.drainTimeoutMs, logger, signal).then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ msg: 'shutdown failed', error: String(error) });
          process.exit(1);
        },
      );
    });
  }
  await app.listen(config.port, config.host);
  logger.log({ msg: options.listening, host: config.host, port: config.port, ...options.describe?.(config) });
}

/**
 * The shutdown order of every app: readiness turns 503 (`draining`), the server stops accepting and its in-flight
 * requests finish (at most `drainTimeoutMs`, then their connections are cut), and only then the app closes: queues
 * and features (`onModuleDestroy`), Redis (`beforeApplicationShutdown`), databases (`onApplicationShutdown`). A
 * request that was running when the signal came is answered with everything it needs still open.
 */
export async function shutdown(
  app: INestApplication,
  drainTimeoutMs: number,
  logger: LoggerService,
  signal = 'SIGTERM',
): Promise<void> {
  app.get(ShutdownState).startDraining();
  logger.log({ msg: 'draining', signal, drainTimeoutMs });
  const { timedOut } = await drainServer(app.getHttpServer() as Server, drainTimeoutMs);
  if (timedOut) logger.warn({ msg: 'drain timed out: connections cut', drainTimeoutMs });
  await app.close();
  // Last: the spans of the requests just drained, and of the closing itself.
  await flushTraces();
  logger.log({ msg: 'stopped' });
}
