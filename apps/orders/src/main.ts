import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { loadOrdersConfig } from './config/orders-config.js';

bootstrap({
  loadConfig: () => loadOrdersConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'orders listening',
  describe: (config) => ({ paymentsUrls: config.paymentsUrls, idempotency: config.idempotency.enabled }),
});
