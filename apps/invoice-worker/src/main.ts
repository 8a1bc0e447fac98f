import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { ConfigError, loadConfig } from './config/app-config.js';

async function bootstrap(): Promise<void> {
  const logger = new ConsoleLogger({ json: true, colors: false });
  const config = loadConfig(process.env);
  const app = await NestFactory.create(AppModule.forRoot(config), { logger });
  // SIGTERM: stop fetching, finish the running jobs, then close Redis (see InvoicesProcessor.onModuleDestroy).
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger.log('invoice-worker started', {
    port: config.port,
    prefix: config.worker.prefix,
    idempotency: config.idempotency.enabled,
    faults: config.faultsEnabled,
  });
}

bootstrap().catch((error: unknown) => {
  // A bad environment is the operator's to fix: its message says what; anything else deserves its stack.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
