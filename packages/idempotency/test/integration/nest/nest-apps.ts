import {
  Module,
  type DynamicModule,
  type INestApplication,
  type INestApplicationContext,
  type LoggerService,
  type Type,
} from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { IdempotencyModule, type IdempotencyModuleOptions } from '../../../src/nest/index.js';

/** The two HTTP platforms Nest ships; every behaviour suite runs on both. */
export const PLATFORMS = ['express', 'fastify'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Every log line an app wrote, by level, so a suite can assert a warning was logged (once). */
export class CapturedLogs implements LoggerService {
  readonly lines: { level: string; message: string }[] = [];
  log = (message: unknown) => void this.lines.push({ level: 'log', message: String(message) });
  error = (message: unknown) => void this.lines.push({ level: 'error', message: String(message) });
  warn = (message: unknown) => void this.lines.push({ level: 'warn', message: String(message) });
  debug = (): void => {};
  verbose = (): void => {};
  of(level: string): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
}

/**
 * Starts an in-process app on `platform` with `IdempotencyModule.forRoot(options)`, the `controllers` and
 * `providers`; listening on no port (supertest binds the server). Rejects as Nest does when a route is refused.
 */
export async function startNestApp(
  platform: Platform,
  options: IdempotencyModuleOptions,
  controllers: Type[],
  extra: { providers?: Type[]; logger?: LoggerService; imports?: DynamicModule[] } = {},
): Promise<INestApplication> {
  @Module({
    imports: [IdempotencyModule.forRoot(options), ...(extra.imports ?? [])],
    controllers,
    providers: extra.providers ?? [],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app =
    platform === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: extra.logger ?? false })
      : moduleRef.createNestApplication({ logger: extra.logger ?? false });
  try {
    await app.init();
    if (platform === 'fastify')
      await (app.getHttpAdapter().getInstance() as { ready(): Promise<void> }).ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

/** An application context (no HTTP) of a module with `imports` and `providers`, initialised, Nest's logs off. */
export async function appWith(imports: unknown[], providers: unknown[]): Promise<INestApplicationContext> {
  @Module({ imports: imports as never[], providers: providers as never[] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
