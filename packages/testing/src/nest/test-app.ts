import {
  Logger,
  type DynamicModule,
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
  /** Awaited once the app is initialised, e.g. the shell's `whenReady` (readiness on its stores). */
  readonly ready?: (app: INestApplication) => Promise<unknown>;
}

/**
 * An app built from its root module with `Test.createTestingModule`, initialised (not listening: supertest binds
 * it), its logs off, and `overrides` in place of the named providers.
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
  const app = (await builder.compile()).createNestApplication({ ...options.appOptions, logger: false });
  await app.init();
  await options.ready?.(app);
  return app;
}
