import { Module, type DynamicModule } from '@nestjs/common';
import { AppShellModule } from '@retry-safe/app-shell';
import { ApiTokenAuthenticator } from './auth/api-token.authenticator.js';
import { GATEWAY_PROBLEMS } from './common/gateway-problems.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config/gateway-config.js';
import { gatewaySettings } from './config/gateway-settings.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { PaymentsModule } from './payments/payments.module.js';

/** The public edge: authenticates, validates, and forwards orders, payments and invoice requests to orders. */
@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppShellModule.forRoot({
          config,
          configToken: GATEWAY_CONFIG,
          faultsEnabled: config.faultsEnabled,
          metricsListener: config.metricsListener,
          problems: GATEWAY_PROBLEMS,
          // The edge of the chain mints every request id; the tenant is known once the caller is authenticated.
          logging: { level: config.logLevel },
          requestContext: {
            service: 'gateway',
            requestId: 'mint',
            tenantOf: (_req, context) => context.tenantId,
          },
          authenticate: new ApiTokenAuthenticator(config.apiTokens),
          bodyLimitBytes: config.bodyLimitBytes,
          settings: gatewaySettings(config),
        }),
        OrdersModule,
        PaymentsModule,
        InvoicesModule,
      ],
    };
  }
}
