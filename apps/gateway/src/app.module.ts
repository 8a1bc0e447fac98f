import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import {
  createValidationPipe,
  JSON_BODY_OPTIONS,
  JsonBodyMiddleware,
  MetricsModule,
  REQUEST_CONTEXT_OPTIONS,
  RequestContextMiddleware,
  type RequestContextOptions,
} from '@retry-safe/app-shell';
import { ADMIN_PATHS, AdminModule } from './admin/admin.module.js';
import { ProblemExceptionFilter } from './common/problem-exception.filter.js';
import { ConfigModule } from './config/config.module.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { HealthModule } from './health/health.module.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { PaymentsModule } from './payments/payments.module.js';

// The edge of the chain mints every request id; the tenant is known once the auth guard ran.
const requestContextOptions: RequestContextOptions = {
  service: 'gateway',
  requestId: 'mint',
  tenantOf: (_req, context) => context.tenantId,
};

/** The public edge: authenticates, validates, and forwards payments and invoice requests to orders. */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        FaultInjectionModule.forRoot({
          enabled: config.faultsEnabled,
          ignorePaths: ['/health', '/metrics', ...ADMIN_PATHS],
        }),
        AdminModule.forRoot({ enabled: config.faultsEnabled }),
        MetricsModule.forRoot(),
        HealthModule,
        PaymentsModule,
        InvoicesModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: JSON_BODY_OPTIONS, useValue: { limitBytes: config.bodyLimitBytes } },
        { provide: REQUEST_CONTEXT_OPTIONS, useValue: requestContextOptions },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The app's own body parser is off: parsing runs here, after the request has an id, so rejected bodies are logged.
    consumer.apply(RequestContextMiddleware, JsonBodyMiddleware).forRoutes('{*path}');
  }
}
