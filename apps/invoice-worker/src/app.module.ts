import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { DeliveryJournal } from './admin/delivery-journal.service.js';
import { APP_CONFIG, redisLocation, type AppConfig } from './config/app-config.js';
import { workerSettings } from './config/worker-settings.js';
import { FaultsModule } from './faults/faults.module.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * invoice-worker: a Nest application whose real work is the BullMQ consumer; its HTTP listener (WORKER_PORT) only
 * serves the shell's routes: `/health` (readiness on Redis), `/metrics` and, with FAULTS_ENABLED=true, `/__faults`
 * (rules for the job fault points too), `/__config` and `/__requests` (the deliveries). Job failures never reach
 * the exception filter: they go to BullMQ as the job's failure.
 */
@Module({})
export class AppModule extends shellAppModule((config: AppConfig) => ({
  configToken: APP_CONFIG,
  problems: { serviceName: 'The worker' },
  requestContext: { service: 'worker', requestId: 'propagate' },
  metrics: MetricsService,
  // The store would rather wait for a reconnect than fail a delivery at once: BullMQ retries it anyway.
  redis: { ...redisLocation(config), failFast: false, commandTimeoutMs: config.redisCommandTimeoutMs },
  settings: workerSettings(config),
  journal: DeliveryJournal,
  features: [FaultsModule, InvoicesModule.forRoot(config)],
})) {}
