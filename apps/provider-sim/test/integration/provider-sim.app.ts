import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { SHELL_APP_OPTIONS } from '@retry-safe/app-shell';
import { createTestApp } from '@retry-safe/testing/nest';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** provider-sim as `main.ts` builds it, from an environment record, ready for supertest. */
export function createProviderApp(env: Record<string, string> = {}): Promise<INestApplication> {
  return createTestApp(AppModule.forRoot(loadConfig(env)), { appOptions: SHELL_APP_OPTIONS });
}

/** `POST path` with `body` and, unless `key` is undefined, an Idempotency-Key, on the app `app()` returns then. */
export const postTo =
  (app: () => INestApplication, path: string) => (key: string | undefined, body: object) => {
    const req = request(app().getHttpServer()).post(path).send(body);
    return key === undefined ? req : req.set('Idempotency-Key', key);
  };
