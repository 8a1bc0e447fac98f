import { Module } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import type { Redis } from 'ioredis';
import { PAYMENTS_CONFIG, type PaymentsConfig } from '../config/payments-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { ProviderModule } from '../provider/provider.module.js';
import { PaymentsController } from './payments.controller.js';
import { ChargeSettings } from './charge-settings.js';
import { PaymentsService } from './payments.service.js';

/** `POST /v1/payments`: the library's coordinator (from `IDEMPOTENCY_*`) in front of the provider. */
@Module({
  imports: [
    ProviderModule,
    IdempotencyModule.forRootAsync({
      inject: [PAYMENTS_CONFIG, REDIS_CLIENT, MetricsService],
      useFactory: (config: PaymentsConfig, redis: Redis, metrics: MetricsService) => ({
        store: new RedisIdempotencyStore(redis, {
          keyPrefix: config.idempotency.keyPrefix,
          commandTimeoutMs: config.idempotency.commandTimeoutMs,
        }),
        coordinator: {
          inFlight: config.idempotency.inFlight,
          leaseMs: config.idempotency.leaseMs,
          renewLease: config.idempotency.renewLease,
          onStoreUnavailable: config.idempotency.onStoreUnavailable,
          onEvent: (event) => metrics.idempotencyEvents.inc({ type: event.type }),
          tracer: trace.getTracer('payments'),
        },
      }),
    }),
  ],
  controllers: [PaymentsController],
  providers: [PaymentsService, ChargeSettings],
})
export class PaymentsModule {}
