import { Module, type DynamicModule } from '@nestjs/common';
import { AppShellModule, InternalTokenAuthenticator } from '@retry-safe/app-shell';
import { ChainHeader } from '@retry-safe/contracts/http';
import { ORDERS_PROBLEMS } from './common/orders-problems.js';
import { ORDERS_CONFIG, type OrdersConfig } from './config/orders-config.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { MetricsService } from './metrics/metrics.service.js';
import { PaymentsModule } from './payments/payments.module.js';

/** Internal service between the gateway and payments; producer of the invoice queue. Orders has no design to
 * switch, hence no runtime settings and no `/__config`. */
@Module({})
export class AppModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppShellModule.forRoot({
          config,
          configToken: ORDERS_CONFIG,
          faultsEnabled: config.faultsEnabled,
          metricsListener: config.metricsListener,
          problems: ORDERS_PROBLEMS,
          // A hop inside the chain: the caller's request id and deadline carry on; the gateway (authenticated) sends the tenant.
          requestContext: {
            service: 'orders',
            requestId: 'propagate',
            requestBudgetMs: config.requestBudgetMs,
            tenantOf: (req) => req.headers[ChainHeader.Tenant],
          },
          // Only the gateway (holding INTERNAL_TOKEN) may call: the tenant header is its word.
          authenticate: new InternalTokenAuthenticator(config.internalToken),
          bodyLimitBytes: config.bodyLimitBytes,
          metrics: MetricsService,
          redis: { url: config.redisUrl, clusterNodes: config.redisClusterNodes },
        }),
        PaymentsModule,
        InvoicesModule,
      ],
    };
  }
}
