import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { loadPaymentsConfig } from './config/payments-config.js';

bootstrap({
  loadConfig: () => loadPaymentsConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'payments listening',
  describe: (config) => ({ idempotency: { ...config.idempotency } }),
});
