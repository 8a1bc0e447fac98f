import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(
  AppModule.forRoot({
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    keyPrefix: process.env.IDEMPOTENCY_KEY_PREFIX ?? 'idem:',
  }),
);
// Runs the shutdown hooks on SIGTERM, so the Redis connections close.
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000));
