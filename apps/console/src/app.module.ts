import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { CONSOLE_CONFIG, type ConsoleConfig } from './config/console-config.js';
import { LoopbackHostMiddleware } from './host/loopback-host.middleware.js';
import { CONSOLE_PROBLEMS } from './runs/console-errors.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { StackService } from './stack/stack.service.js';
import { PageController } from './page/page.controller.js';

@Module({ controllers: [RunsController, PageController], providers: [StackService, RunsService] })
class ConsoleModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Every path, not only the console's routes: the shell's probes and unknown paths answer no foreign Host
    // either. After the shell's own middleware (the refusal gets a request id and a log line), before any route.
    consumer.apply(LoopbackHostMiddleware).forRoutes('{*path}');
  }
}

/**
 * The console: the shell every service uses (logs, problems, health, shutdown order) with the console's page and
 * API. It starts the demo stack itself and reads only what the services publish.
 */
@Module({})
export class AppModule extends shellAppModule((_config: ConsoleConfig) => ({
  configToken: CONSOLE_CONFIG,
  problems: CONSOLE_PROBLEMS,
  requestContext: { service: 'console', requestId: 'mint' },
  features: [ConsoleModule],
})) {}
