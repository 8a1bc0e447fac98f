import type { INestApplication } from '@nestjs/common';
import { shellPlatform } from '@retry-safe/app-shell';
import { createTestApp } from '@retry-safe/testing/nest';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';

/** invoice-worker as `main.ts` builds it (without listening), from an environment record. */
export function createWorkerApp(env: Record<string, string>): Promise<INestApplication> {
  return createTestApp(AppModule.forRoot(loadConfig(env)), shellPlatform());
}
