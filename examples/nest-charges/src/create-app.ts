import type { DynamicModule, INestApplication, NestApplicationOptions, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Platform } from './config.js';

/** The app on the chosen platform: Express is Nest's default, Fastify needs its adapter. */
export function createApp(
  module: Type | DynamicModule,
  platform: Platform,
  options?: NestApplicationOptions,
): Promise<INestApplication> {
  return platform === Platform.Fastify
    ? NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), options)
    : NestFactory.create<NestExpressApplication>(module, options);
}
