import 'reflect-metadata';
import { loadConfig } from './config.js';
import { createService } from './service.js';

const service = await createService(loadConfig(process.env));
// Runs the shutdown hooks on SIGTERM: the broker connection, then the store and its Redis client, close.
service.enableShutdownHooks();
await service.listen();
