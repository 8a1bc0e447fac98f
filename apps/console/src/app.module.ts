import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { CONSOLE_CONFIG, type ConsoleConfig } from './config/console-config.js';
import { CONSOLE_PROBLEMS } from './runs/console-errors.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { StackService } from './stack/stack.service.js';
import { PageController } from './page/page.controller.js';

@Module({ controllers: [RunsController, PageController], providers: [StackService, RunsService] })
class ConsoleModule {}

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
