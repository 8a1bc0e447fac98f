import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import { ADMIN_PATHS, AdminModule } from './admin/admin.module.js';
import { ChargesModule } from './charges/charges.module.js';
import { ProblemExceptionFilter } from './common/problem-exception.filter.js';
import { RequestContextMiddleware } from './common/request-context.middleware.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { EmailsModule } from './emails/emails.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';

/** provider-sim: a payment provider and a mail provider, in memory, standing for external systems. */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        // Inert unless FAULTS_ENABLED=true; then e.g. `drop` after the handler of POST /v1/charges simulates
        // "the provider charged but its response was lost".
        FaultInjectionModule.forRoot({
          enabled: config.faultsEnabled,
          ignorePaths: ['/health', '/metrics', ...ADMIN_PATHS],
        }),
        AdminModule.forRoot({ enabled: config.faultsEnabled }),
        MetricsModule,
        HealthModule,
        ChargesModule,
        EmailsModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemExceptionFilter }],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestContextMiddleware).forRoutes('{*path}');
  }
}
