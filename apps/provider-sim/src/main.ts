import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { loadConfig } from './config/app-config.js';

bootstrap({
  loadConfig: () => loadConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'provider-sim listening',
  describe: (config) => ({ dedup: config.dedup, latencyMs: config.latencyMs }),
});
