import { hostname } from 'node:os';
import {
  Inject,
  Module,
  Optional,
  type DynamicModule,
  type OnApplicationShutdown,
  type Type,
} from '@nestjs/common';
import { BullModule, Processor } from '@nestjs/bullmq';
import { trace } from '@opentelemetry/api';
import { BullMQOtel } from 'bullmq-otel';
import { type IdempotencyEvent } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { REDIS_CLIENT, SHARED_LOOKUP_REDIS_OPTIONS, createRedisConnection } from '@retry-safe/app-shell';
import type { Cluster, Redis } from 'ioredis';
import { bullmqConnectionOptions, redisLocation, type AppConfig } from '../config/app-config.js';
import { DeadLetterDepth } from '../dead-letters/dead-letter-depth.js';
import { DEAD_LETTER_QUEUE } from '../dead-letters/dead-letter.js';
import { MailModule } from '../mail/mail.module.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { JobRetries } from '../retries/job-retries.service.js';
import { INVOICES_QUEUE } from './invoice-job.js';
import { InvoiceSendSettings, InvoiceSender } from './invoice-sender.service.js';
import { InvoicesProcessor, WORKER_SHUTDOWN, type WorkerShutdown } from './invoices.processor.js';
import { QueueDepth } from './queue-depth.js';

// The Cluster connection handed to BullMQ, which never closes a connection it was given.
const BULLMQ_CLUSTER = Symbol('BULLMQ_CLUSTER');

/** The invoice consumer: BullMQ worker, idempotency coordinator, retry policy, and the sender between them. */
@Module({})
export class InvoicesModule implements OnApplicationShutdown {
  constructor(@Optional() @Inject(BULLMQ_CLUSTER) private readonly cluster?: Cluster) {}

  // After every onModuleDestroy: the processor closed the worker first.
  async onApplicationShutdown(): Promise<void> {
    await this.cluster?.quit().catch(() => this.cluster?.disconnect());
  }

  static forRoot(config: AppConfig): DynamicModule {
    const cluster =
      config.redisClusterNodes.length === 0
        ? undefined
        : (createRedisConnection(redisLocation(config), bullmqConnectionOptions(config)) as Cluster);
    return {
      module: InvoicesModule,
      imports: [
        BullModule.forRoot({
          // BullMQ's blocking commands wait as long as they need: a Worker requires `maxRetriesPerRequest: null`
          // (ioredis would otherwise give up on them and the worker would stop fetching jobs); the command
          // timeout sits above BullMQ's longest block. On a Cluster, the prefix's hash tag keeps every key of a
          // queue in one slot (checked at start-up). BullMQ's connections resolve Redis' name with the shell's
          // shared lookup, as every other connection of the service does.
          connection: cluster ?? {
            url: config.redisUrl,
            ...SHARED_LOOKUP_REDIS_OPTIONS,
            ...bullmqConnectionOptions(config),
          },
          prefix: config.worker.prefix,
          // BullMQ's own spans: each delivery's `process` span continues the trace of the request that queued it.
          telemetry: new BullMQOtel({ tracerName: 'invoice-worker' }),
        }),
        // Registering the queue is what makes @nestjs/bullmq discover @Processor classes and start their Worker.
        BullModule.registerQueue({ name: INVOICES_QUEUE }, { name: DEAD_LETTER_QUEUE }),
        idempotencyModule(config),
        MailModule,
      ],
      providers: [
        InvoiceSender,
        InvoiceSendSettings,
        JobRetries,
        DeadLetterDepth,
        QueueDepth,
        {
          provide: WORKER_SHUTDOWN,
          useValue: {
            timeoutMs: config.worker.shutdownTimeoutMs,
            exit: (code) => process.exit(code),
          } satisfies WorkerShutdown,
        },
        configuredProcessor(config),
        ...(cluster === undefined ? [] : [{ provide: BULLMQ_CLUSTER, useValue: cluster }]),
      ],
    };
  }
}

/**
 * The processor with the configured worker options. `@Processor` takes them when a class is defined, and they come
 * from config read at start-up: so the configured processor is a subclass defined here. Nest reads the metadata
 * only when the app starts.
 */
function configuredProcessor(config: AppConfig): Type<InvoicesProcessor> {
  @Processor(INVOICES_QUEUE, {
    name: `invoice-worker@${hostname()}:${process.pid}`,
    concurrency: config.worker.concurrency,
    lockDuration: config.worker.lockDurationMs,
    stalledInterval: config.worker.stalledIntervalMs,
    maxStalledCount: config.worker.maxStalledCount,
    // BullMQ honours a manual rate limit (the 429 pause of `JobRetries`) only on a worker with a limiter; this
    // one is too wide to ever bind by itself (a million jobs a second).
    limiter: { max: 1_000_000, duration: 1_000 },
  })
  class ConfiguredInvoicesProcessor extends InvoicesProcessor {}
  return ConfiguredInvoicesProcessor;
}

/** The coordinator of the sends, on the shell's Redis client, counting its events. */
function idempotencyModule(config: AppConfig): DynamicModule {
  return IdempotencyModule.forRootAsync({
    inject: [REDIS_CLIENT, MetricsService],
    useFactory: (redis: Redis | Cluster, metrics: MetricsService) => ({
      store: new RedisIdempotencyStore(redis, { keyPrefix: config.idempotency.keyPrefix }),
      coordinator: {
        // `raise`, not `wait`: a duplicate delivery must not hold a worker slot while another worker sends;
        // it fails this attempt (not acknowledged) and BullMQ brings it back after the backoff.
        inFlight: 'raise',
        leaseMs: config.idempotency.leaseMs,
        renewLease: config.idempotency.renewLease,
        onEvent: (event: IdempotencyEvent) => metrics.idempotencyEvents.inc({ type: event.type }),
        tracer: trace.getTracer('invoice-worker'),
      },
    }),
  });
}
