import { NestFactory } from '@nestjs/core';
import { AppModule } from './nest-app.module.js';

// Express is Nest's default platform: nothing to choose.
const app = await NestFactory.create(AppModule);
app.enableShutdownHooks();
await app.listen(3000, '127.0.0.1');
