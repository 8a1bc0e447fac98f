import type { INestMicroservice, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import type { ServiceConfig } from './config.js';
import { serverOptions } from './transport.js';

/** The service on the configured broker, not yet listening: the same module on NATS and on RabbitMQ. */
export function createService(
  config: ServiceConfig,
  options: Pick<NestApplicationOptions, 'logger'> = {},
): Promise<INestMicroservice> {
  return NestFactory.createMicroservice(AppModule.forRoot(config), { ...serverOptions(config), ...options });
}
