import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const app = await NestFactory.create(AppModule.with(config));
// Runs the shutdown hooks on SIGTERM, so the store and its Redis client close.
app.enableShutdownHooks();
// POST http://localhost:3000/graphql
await app.listen(config.port);
