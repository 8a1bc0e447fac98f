import { Logger, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SHELL_APP_OPTIONS } from '@retry-safe/app-shell';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** invoice-worker as `main.ts` builds it (without listening), from an environment record. */
export async function createWorkerApp(env: Record<string, string>): Promise<INestApplication> {
  Logger.overrideLogger(false);
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(loadConfig(env))],
  }).compile();
  const app = moduleRef.createNestApplication({ ...SHELL_APP_OPTIONS, logger: false });
  await app.init();
  return app;
}
