import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SHELL_APP_OPTIONS } from '@retry-safe/app-shell';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** provider-sim as `main.ts` builds it, from an environment record, ready for supertest. */
export async function createProviderApp(env: Record<string, string> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(loadConfig(env))],
  }).compile();
  const app = moduleRef.createNestApplication({ ...SHELL_APP_OPTIONS, logger: false });
  await app.init();
  return app;
}
