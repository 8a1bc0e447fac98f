import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { ChargesModule } from './charges/charges.module.js';
import { LedgerResetAuthenticator } from './common/ledger-reset.authenticator.js';
import { PROVIDER_PROBLEMS } from './common/provider-problems.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { providerSettings } from './config/provider-settings.js';
import { EmailsModule } from './emails/emails.module.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * provider-sim: a payment provider and a mail provider, in memory, standing for external systems. It uses the
 * generic shell (logs, metrics, faults, scenario routes) and none of its callers' contracts. Fault injection is
 * inert unless FAULTS_ENABLED=true; then e.g. `drop` after the handler of POST /v1/charges simulates "the provider
 * charged but its response was lost".
 */
@Module({})
export class AppModule extends shellAppModule((config: AppConfig) => ({
  configToken: APP_CONFIG,
  problems: PROVIDER_PROBLEMS,
  requestContext: { service: 'provider', requestId: 'propagate' },
  metrics: MetricsService,
  authenticate: new LedgerResetAuthenticator(config.adminToken, config.host),
  settings: providerSettings(config),
  features: [ChargesModule, EmailsModule],
})) {}
