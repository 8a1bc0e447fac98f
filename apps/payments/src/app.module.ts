import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { InternalTokenAuthenticator } from '@retry-safe/app-shell/http';
import { PAYMENTS_PROBLEMS } from './common/payments-problems.js';
import { PAYMENTS_CONFIG, type PaymentsConfig } from './config/payments-config.js';
import { paymentsSettings } from './config/payments-settings.js';
import { MetricsService } from './metrics/metrics.service.js';
import { PaymentsModule } from './payments/payments.module.js';

/** Internal service that charges through the provider, once per idempotency key. */
@Module({})
export class AppModule extends shellAppModule((config: PaymentsConfig) => ({
  configToken: PAYMENTS_CONFIG,
  problems: PAYMENTS_PROBLEMS,
  // A hop inside the chain: the caller's request id and deadline carry on.
  requestContext: { service: 'payments', requestId: 'propagate', requestBudgetMs: config.requestBudgetMs },
  // Only orders (holding INTERNAL_TOKEN) may charge: the command's tenant is its word.
  authenticate: new InternalTokenAuthenticator(config.internalToken),
  bodyLimitBytes: config.bodyLimitBytes,
  metrics: MetricsService,
  redis: { url: config.redisUrl, commandTimeoutMs: config.redisCommandTimeoutMs },
  settings: paymentsSettings(config),
  features: [PaymentsModule],
})) {}
