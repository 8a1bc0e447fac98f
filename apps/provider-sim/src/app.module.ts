import { Module, type DynamicModule } from '@nestjs/common';
import { AppShellModule } from '@retry-safe/app-shell';
import { ChargesModule } from './charges/charges.module.js';
import { PROVIDER_PROBLEMS } from './common/provider-problems.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { providerSettings } from './config/provider-settings.js';
import { EmailsModule } from './emails/emails.module.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * provider-sim: a payment provider and a mail provider, in memory, standing for external systems. It uses the
 * generic shell (logs, metrics, faults, scenario routes) and none of its callers' contracts.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Inert unless FAULTS_ENABLED=true; then e.g. `drop` after the handler of POST /v1/charges simulates
        // "the provider charged but its response was lost".
        AppShellModule.forRoot({
          config,
          configToken: APP_CONFIG,
          faultsEnabled: config.faultsEnabled,
          metricsListener: config.metricsListener,
          problems: PROVIDER_PROBLEMS,
          logging: { level: config.logLevel },
          requestContext: { service: 'provider', requestId: 'propagate' },
          metrics: MetricsService,
          settings: providerSettings(config),
        }),
        ChargesModule,
        EmailsModule,
      ],
    };
  }
}
