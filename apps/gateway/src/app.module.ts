import { Module } from '@nestjs/common';
import { shellAppModule } from '@retry-safe/app-shell';
import { ApiTokenAuthenticator } from './auth/api-token.authenticator.js';
import { GATEWAY_PROBLEMS } from './common/gateway-problems.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config/gateway-config.js';
import { gatewaySettings } from './config/gateway-settings.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { PaymentsModule } from './payments/payments.module.js';

/** The public edge: authenticates, validates, and forwards orders, payments and invoice requests to orders. */
@Module({})
export class AppModule extends shellAppModule((config: GatewayConfig) => ({
  configToken: GATEWAY_CONFIG,
  problems: GATEWAY_PROBLEMS,
  // The edge of the chain mints every request id; the tenant is known once the caller is authenticated.
  requestContext: { service: 'gateway', requestId: 'mint', tenantOf: (_req, context) => context.tenantId },
  authenticate: new ApiTokenAuthenticator(config.apiTokens),
  bodyLimitBytes: config.bodyLimitBytes,
  settings: gatewaySettings(config),
  features: [OrdersModule, PaymentsModule, InvoicesModule],
})) {}
