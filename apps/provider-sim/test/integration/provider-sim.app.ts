import { afterEach } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { shellPlatform } from '@retry-safe/app-shell';
import { createTestApp } from '@retry-safe/testing/nest';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** provider-sim as `main.ts` builds it, from an environment record, ready for supertest. */
export function createProviderApp(env: Record<string, string> = {}): Promise<INestApplication> {
  return createTestApp(AppModule.forRoot(loadConfig(env)), shellPlatform());
}

/** `POST path` with `body` and, unless `key` is undefined, an Idempotency-Key, on the app `app()` returns then. */
export const postTo =
  (app: () => INestApplication, path: string) => (key: string | undefined, body: object) => {
    const req = request(app().getHttpServer()).post(path).send(body);
    return key === undefined ? req : req.set('Idempotency-Key', key);
  };

/** What {@link useProviderApp} gives a describe block. */
export interface ProviderAppFixture {
  /** Builds the test's app from an environment record; it is closed after the test. */
  start(env?: Record<string, string>): Promise<INestApplication>;
  /** The app the running test started. */
  app(): INestApplication;
}

/** One provider-sim app per test of a describe block, each with the environment the test starts it with. */
export function useProviderApp(): ProviderAppFixture {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  return {
    start: async (env = {}) => (app = await createProviderApp(env)),
    app: () => app!,
  };
}
