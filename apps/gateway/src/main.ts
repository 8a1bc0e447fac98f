import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { answerParserErrorsWithProblems } from './common/client-error.js';
import { loadGatewayConfig } from './config/gateway-config.js';

bootstrap({
  loadConfig: () => loadGatewayConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'gateway listening',
  describe: (config) => ({ keyMode: config.keyMode, tenants: config.apiTokens.size }),
  securityHeaders: true,
  publicEdge: true,
  configureServer: answerParserErrorsWithProblems,
});
