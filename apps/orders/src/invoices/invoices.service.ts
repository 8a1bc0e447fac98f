import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import { QueueUnavailableError } from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { INVOICES_QUEUE, INVOICE_JOB_NAME, InvoiceJobSchema, type InvoiceJob } from '@retry-safe/contracts';

/** What the producer tells its caller: the id of this delivery of the invoice. */
export interface InvoiceReceipt {
  deliveryId: string;
}

/**
 * Publishes invoice jobs. Every call is a new delivery with a fresh `deliveryId` (also the BullMQ job id), so a
 * producer retry really is a second job: deduplication is the worker's business, by order and version.
 * Jobs retry 5 times with exponential backoff and full jitter (up to 1 s, 2 s, 4 s...) when the worker fails them;
 * once those are spent, the worker's retry horizon keeps a transiently failing job alive (24 h by default).
 */
@Injectable()
export class InvoicesService implements OnModuleDestroy {
  private readonly logger = new Logger(InvoicesService.name);
  private readonly queue: Queue<InvoiceJob, unknown, typeof INVOICE_JOB_NAME>;

  constructor(
    @Inject(ORDERS_CONFIG) config: OrdersConfig,
    @Inject(REDIS_CLIENT) redis: Redis | Cluster,
    private readonly metrics: MetricsService,
  ) {
    this.queue = new Queue(INVOICES_QUEUE, {
      // The shared client fails fast while Redis is down, so a request gets 503 instead of hanging.
      connection: redis,
      prefix: config.bullmqPrefix,
      defaultJobOptions: {
        attempts: 5,
        // jitter 1: each delay drawn in [0, 2^n s], so jobs that failed together do not come back together.
        backoff: { type: 'exponential', delay: 1_000, jitter: 1 },
        // Keep finished jobs for a day (the receipts are worth inspecting), bounded in number.
        removeOnComplete: { age: 86_400, count: 10_000 },
        removeOnFail: { age: 7 * 86_400 },
      },
    });
    this.queue.on('error', (error: Error) =>
      this.logger.warn({ msg: 'invoice queue error', error: error.message }),
    );
  }

  /** Enqueues one delivery of `orderId`'s invoice `version` for `email`. */
  async publish(
    tenantId: string,
    orderId: string,
    version: number,
    email: string,
    requestId: string,
  ): Promise<InvoiceReceipt> {
    const job = InvoiceJobSchema.parse({
      deliveryId: randomUUID(),
      tenantId,
      orderId,
      invoiceVersion: version,
      email,
    });
    try {
      await this.queue.add(INVOICE_JOB_NAME, job, { jobId: job.deliveryId });
    } catch (error) {
      throw new QueueUnavailableError({ cause: error });
    }
    this.metrics.invoicesEnqueued.inc();
    this.logger.log({ msg: 'invoice job enqueued', requestId, deliveryId: job.deliveryId, orderId, version });
    return { deliveryId: job.deliveryId };
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
  }
}
