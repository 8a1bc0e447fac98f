import { ConsoleLogger, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import { ConfigError } from '../env.js';

/**
 * How every app is created, by `main.ts` and by in-process tests alike: Nest's body parser off (the shell parses
 * JSON after the request context, see `AppShellModule`), and open connections closed on shutdown so a keep-alive
 * client cannot hold the process.
 */
export const SHELL_APP_OPTIONS = { bodyParser: false, forceCloseConnections: true } as const;

/** What `main.ts` hands {@link bootstrap}. @typeParam C - the app's validated config. */
export interface BootstrapOptions<C extends { readonly port: number }> {
  /** Reads and validates the environment, once (`() => loadGatewayConfig(process.env)`). */
  readonly loadConfig: () => C;
  /** The root module for that config (`AppModule.forRoot`). */
  readonly module: (config: C) => DynamicModule;
  /** The first log line's fields besides `msg`, e.g. the designs in force. */
  readonly describe?: (config: C) => Record<string, unknown>;
  /** The log line once listening, e.g. `gateway listening`. */
  readonly listening: string;
  /** Sets the security headers of Nest's Express adapter (the public edge). @default false */
  readonly securityHeaders?: boolean;
  /** Runs on the HTTP server before it listens, e.g. to answer parser errors with problems. */
  readonly configureServer?: (server: Server) => void;
}

/**
 * Starts an app: validates its environment, builds it with JSON logs, enables the shutdown hooks (SIGTERM stops the
 * features, then closes Redis) and listens on `config.port`. A bad environment prints its message and exits 1;
 * any other start-up failure prints its stack.
 */
export function bootstrap<C extends { readonly port: number }>(options: BootstrapOptions<C>): void {
  start(options).catch((error: unknown) => {
    // A bad environment is the operator's to fix: its message says what; anything else deserves its stack.
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}

async function start<C extends { readonly port: number }>(options: BootstrapOptions<C>): Promise<void> {
  const logger = new ConsoleLogger({ json: true, colors: false });
  const config = options.loadConfig();
  const app = await NestFactory.create<NestExpressApplication>(options.module(config), {
    ...SHELL_APP_OPTIONS,
    logger,
  });
  if (options.securityHeaders === true) app.useSecurityHeaders();
  options.configureServer?.(app.getHttpServer());
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger.log({ msg: options.listening, port: config.port, ...options.describe?.(config) });
}
