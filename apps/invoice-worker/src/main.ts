import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { loadConfig } from './config/app-config.js';

// SIGTERM: stop fetching, finish the running jobs, then close Redis (see InvoicesProcessor.onModuleDestroy).
bootstrap({
  loadConfig: () => loadConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'invoice-worker started',
  describe: (config) => ({
    prefix: config.worker.prefix,
    idempotency: config.idempotency.enabled,
    faults: config.faultsEnabled,
  }),
});
