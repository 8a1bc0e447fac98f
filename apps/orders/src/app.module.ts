import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import { ADMIN_PATHS, AdminModule } from './admin/admin.module.js';
import { JsonBodyMiddleware } from './common/json-body.middleware.js';
import { ProblemExceptionFilter } from './common/problem-exception.filter.js';
import { RequestContextMiddleware } from './common/request-context.middleware.js';
import { createValidationPipe } from './common/validation.pipe.js';
import { ConfigModule } from './config/config.module.js';
import type { OrdersConfig } from './config/orders-config.js';
import { HealthModule } from './health/health.module.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PaymentsModule } from './payments/payments.module.js';
import { RedisModule } from './redis/redis.module.js';

/** Internal service between the gateway and payments; producer of the invoice queue. */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        FaultInjectionModule.forRoot({
          enabled: config.faultsEnabled,
          ignorePaths: ['/health', '/metrics', ...ADMIN_PATHS],
        }),
        AdminModule.forRoot({ enabled: config.faultsEnabled }),
        RedisModule,
        MetricsModule,
        HealthModule,
        PaymentsModule,
        InvoicesModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The app's own body parser is off: parsing runs here, after the request has an id, so rejected bodies are logged.
    consumer.apply(RequestContextMiddleware, JsonBodyMiddleware).forRoutes('{*path}');
  }
}
