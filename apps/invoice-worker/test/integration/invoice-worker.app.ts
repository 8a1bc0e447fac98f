import { Logger, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** invoice-worker as `main.ts` builds it (without listening), from an environment record. */
export async function createWorkerApp(env: Record<string, string>): Promise<INestApplication> {
  Logger.overrideLogger(false);
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(loadConfig(env))],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
