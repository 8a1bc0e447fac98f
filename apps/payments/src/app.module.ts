import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import {
  createValidationPipe,
  JSON_BODY_OPTIONS,
  JsonBodyMiddleware,
  MetricsModule,
  RedisHealthModule,
  RedisModule,
  REQUEST_CONTEXT_OPTIONS,
  RequestContextMiddleware,
  type RequestContextOptions,
} from '@retry-safe/app-shell';
import { ADMIN_PATHS, AdminModule } from './admin/admin.module.js';
import { ProblemExceptionFilter } from './common/problem-exception.filter.js';
import { ConfigModule } from './config/config.module.js';
import { PAYMENTS_CONFIG, type PaymentsConfig } from './config/payments-config.js';
import { MetricsService } from './metrics/metrics.service.js';
import { PaymentsModule } from './payments/payments.module.js';

// A hop inside the chain: the caller's request id and deadline carry on.
function requestContextOptions(config: PaymentsConfig): RequestContextOptions {
  return {
    service: 'payments',
    requestId: 'propagate',
    requestBudgetMs: config.requestBudgetMs,
  };
}

/** Internal service that charges through the provider, once per idempotency key. */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        FaultInjectionModule.forRoot({
          enabled: config.faultsEnabled,
          ignorePaths: ['/health', '/metrics', ...ADMIN_PATHS],
        }),
        AdminModule.forRoot({ enabled: config.faultsEnabled }),
        RedisModule.forRoot({ configToken: PAYMENTS_CONFIG, url: (c: PaymentsConfig) => c.redisUrl }),
        MetricsModule.forRoot(MetricsService),
        RedisHealthModule,
        PaymentsModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: JSON_BODY_OPTIONS, useValue: { limitBytes: config.bodyLimitBytes } },
        { provide: REQUEST_CONTEXT_OPTIONS, useValue: requestContextOptions(config) },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The app's own body parser is off: parsing runs here, after the request has an id, so rejected bodies are logged.
    consumer.apply(RequestContextMiddleware, JsonBodyMiddleware).forRoutes('{*path}');
  }
}
