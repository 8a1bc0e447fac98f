import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { FaultInjectionModule } from '@retry-safe/fault-injection';
import { ADMIN_PATHS, AdminModule } from './admin/admin.module.js';
import { ProblemExceptionFilter } from './common/problem-exception.filter.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { FaultsModule } from './faults/faults.module.js';
import { HealthModule } from './health/health.module.js';
import { InvoicesModule } from './invoices/invoices.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { RedisModule } from './redis/redis.module.js';

/**
 * invoice-worker: a Nest application whose real work is the BullMQ consumer; its HTTP listener (WORKER_PORT) only
 * serves `/health`, `/metrics` and, with FAULTS_ENABLED=true, the `/__faults` rule API of the job fault points.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        FaultInjectionModule.forRoot({
          enabled: config.faultsEnabled,
          ignorePaths: ['/health', '/metrics', ...ADMIN_PATHS],
        }),
        AdminModule.forRoot({ enabled: config.faultsEnabled }),
        MetricsModule,
        RedisModule,
        FaultsModule,
        HealthModule,
        InvoicesModule.forRoot(config),
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemExceptionFilter }],
    };
  }
}
