import { hostname } from 'node:os';
import { Module, type DynamicModule } from '@nestjs/common';
import { BullModule, Processor } from '@nestjs/bullmq';
import { type IdempotencyEvent } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { MailModule } from '../mail/mail.module.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { INVOICES_QUEUE } from './invoice-job.js';
import { InvoiceSender } from './invoice-sender.service.js';
import { InvoicesProcessor } from './invoices.processor.js';

/** The invoice consumer: BullMQ worker, idempotency coordinator, and the sender between them. */
@Module({})
export class InvoicesModule {
  static forRoot(config: AppConfig): DynamicModule {
    // `@Processor` takes worker options when a class is defined, and they come from config read at start-up: so
    // the configured processor is a subclass defined here. Nest reads the metadata only when the app starts.
    @Processor(INVOICES_QUEUE, {
      name: `invoice-worker@${hostname()}:${process.pid}`,
      concurrency: config.worker.concurrency,
      lockDuration: config.worker.lockDurationMs,
      stalledInterval: config.worker.stalledIntervalMs,
      maxStalledCount: config.worker.maxStalledCount,
    })
    class ConfiguredInvoicesProcessor extends InvoicesProcessor {}

    return {
      module: InvoicesModule,
      imports: [
        BullModule.forRoot({
          // BullMQ's blocking commands wait as long as they need: a Worker requires `maxRetriesPerRequest: null`
          // (ioredis would otherwise give up on them and the worker would stop fetching jobs).
          connection: { url: config.redisUrl, maxRetriesPerRequest: null },
          prefix: config.worker.prefix,
        }),
        // Registering the queue is what makes @nestjs/bullmq discover @Processor classes and start their Worker.
        BullModule.registerQueue({ name: INVOICES_QUEUE }),
        IdempotencyModule.registerAsync({
          inject: [REDIS_CLIENT, MetricsService],
          useFactory: (redis: Redis, metrics: MetricsService) => ({
            store: new RedisIdempotencyStore(redis, { keyPrefix: config.idempotency.keyPrefix }),
            coordinator: {
              // `raise`, not `wait`: a duplicate delivery must not hold a worker slot while another worker sends;
              // it fails this attempt (not acknowledged) and BullMQ brings it back after the backoff.
              inFlight: 'raise',
              leaseMs: config.idempotency.leaseMs,
              renewLease: config.idempotency.renewLease,
              onEvent: (event: IdempotencyEvent) => metrics.idempotencyEvents.inc({ type: event.type }),
            },
          }),
        }),
        MailModule,
      ],
      providers: [InvoiceSender, ConfiguredInvoicesProcessor],
    };
  }
}
