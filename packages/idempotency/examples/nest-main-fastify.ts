import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './nest-app.module.js';

// The same module on Fastify: @Idempotent() reads and writes responses through Nest's adapter.
const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter());
app.enableShutdownHooks();
await app.listen(3000, '127.0.0.1');
