import {
  Logger,
  type DynamicModule,
  type HttpServer,
  type INestApplication,
  type NestApplicationOptions,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Options of {@link createTestApp}. */
export interface TestAppOptions {
  /** Providers replaced by a value (`overrideProvider(token).useValue(value)`): the app's downstream clients. */
  readonly overrides?: ReadonlyArray<readonly [token: unknown, value: unknown]>;
  /** What the app is created with, as its `main.ts` creates it (the shell's `SHELL_APP_OPTIONS`). */
  readonly appOptions?: NestApplicationOptions;
  /**
   * The HTTP adapter, as its `main.ts` creates it (the shell's `shellPlatform()` gives both). @default Nest's
   * default platform (Express)
   */
  readonly httpAdapter?: HttpServer;
  /** Awaited once the app is initialised, e.g. the shell's `whenReady` (readiness on its stores). */
  readonly ready?: (app: INestApplication) => Promise<unknown>;
}

/**
 * An app built from its root module with `Test.createTestingModule`, initialised (not listening: supertest binds
 * it), its logs off, and `overrides` in place of the named providers. On Fastify the instance is made ready too
 * (its routes exist only then), so supertest's requests reach them.
 */
export async function createTestApp(
  module: DynamicModule,
  options: TestAppOptions = {},
): Promise<INestApplication> {
  Logger.overrideLogger(false);
  let builder = Test.createTestingModule({ imports: [module] });
  for (const [token, value] of options.overrides ?? []) {
    builder = builder.overrideProvider(token as never).useValue(value);
  }
  const testing = await builder.compile();
  const appOptions = { ...options.appOptions, logger: false as const };
  const app =
    options.httpAdapter === undefined
      ? testing.createNestApplication(appOptions)
      : testing.createNestApplication(options.httpAdapter, appOptions);
  await app.init();
  const instance = app.getHttpAdapter().getInstance() as { ready?: () => PromiseLike<unknown> };
  if (typeof instance.ready === 'function') await instance.ready();
  await options.ready?.(app);
  return app;
}
