import 'reflect-metadata';
import { AppModule } from './app.module.js';
import { loadConfig } from './config.js';
import { createApp } from './create-app.js';

const config = loadConfig(process.env);
const app = await createApp(AppModule.forRoot(config), config.platform);
// Runs the shutdown hooks on SIGTERM, so the store and its connections close.
app.enableShutdownHooks();
// Every interface, as `nest new` apps listen: Fastify alone would listen on 127.0.0.1 only.
await app.listen(config.port, '0.0.0.0');
