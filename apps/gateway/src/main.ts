import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { answerParserErrorsWithProblems } from './common/client-error.js';
import { loadGatewayConfig } from './config/gateway-config.js';

async function bootstrap(): Promise<void> {
  const logger = new ConsoleLogger({ json: true, colors: false });
  const config = loadGatewayConfig(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger,
    bodyParser: false,
    forceCloseConnections: true,
  });
  app.useSecurityHeaders();
  answerParserErrorsWithProblems(app.getHttpServer());
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger.log({
    msg: 'gateway listening',
    port: config.port,
    keyMode: config.keyMode,
    tenants: config.apiTokens.size,
  });
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
