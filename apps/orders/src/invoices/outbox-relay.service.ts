import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { IntervalLoop, REDIS_CLIENT } from '@retry-safe/app-shell';
import { INVOICES_QUEUE, INVOICE_JOB_NAME, type InvoiceJob } from '@retry-safe/contracts';
import { Queue } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import type { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { boundedConnection } from '../database/database.module.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { InvoicesRepository, OUTBOX_CHANNEL } from './invoices.repository.js';

/**
 * Publishes the invoice outbox to the `invoices` queue. Woken by `NOTIFY` on every commit of a row (a dedicated
 * `LISTEN` connection) and by a poll every `OUTBOX_POLL_MS` (a missed notification, a row left by a crash, Redis
 * back after an outage). Each round, with no transaction spanning the queue: claim unpublished rows for
 * `OUTBOX_LEASE_MS` (one statement), add them to the queue with the row's `delivery_id` as the job id (bounded by
 * `REDIS_COMMAND_TIMEOUT_MS`), mark them published (one statement). Killed after adding and before the mark, the
 * rows stay unpublished and are added again once their lease ends: BullMQ ignores an add whose job id exists, so
 * the queue still holds one job per row. Safe on several replicas: a row one relay holds a lease on is skipped by
 * the others.
 * Jobs retry 5 times with exponential backoff and full jitter (up to 1 s, 2 s, 4 s... with the default
 * `INVOICE_JOB_BACKOFF_MS`) when the worker fails them; once those are spent, the worker's retry horizon keeps a
 * transiently failing job alive (24 h by default).
 */
@Injectable()
export class OutboxRelay implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly queue: Queue<InvoiceJob, unknown, typeof INVOICE_JOB_NAME>;
  private readonly loop: IntervalLoop<number>;
  private listener: pg.Client | undefined;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(REDIS_CLIENT) redis: Redis | Cluster,
    private readonly invoices: InvoicesRepository,
    private readonly faults: OrderFaults,
    private readonly metrics: MetricsService,
  ) {
    this.queue = new Queue(INVOICES_QUEUE, {
      // The shared client fails fast while Redis is down: a round fails, its rows wait for the next one.
      connection: redis,
      prefix: config.bullmqPrefix,
      telemetry: new BullMQOtel({ tracerName: 'orders' }),
      defaultJobOptions: {
        attempts: 5,
        // jitter 1: each delay drawn in [0, 2^n s], so jobs that failed together do not come back together.
        backoff: { type: 'exponential', delay: config.outbox.jobBackoffMs, jitter: 1 },
        // Keep finished jobs for a day (the receipts are worth inspecting), bounded in number.
        removeOnComplete: { age: 86_400, count: 10_000 },
        removeOnFail: { age: 7 * 86_400 },
      },
    });
    this.queue.on('error', (error: Error) =>
      this.logger.warn({ msg: 'invoice queue error', error: error.message }),
    );
    this.loop = new IntervalLoop(
      {
        name: OutboxRelay.name,
        periodMs: config.outbox.pollMs,
        tickTimeoutMs: config.outbox.leaseMs,
        immediate: true,
        failureMessage: 'outbox round failed; the rows wait for the next',
      },
      () => this.round(),
    );
  }

  async onModuleInit(): Promise<void> {
    await this.listen().catch((error: unknown) =>
      this.logger.warn({ msg: 'outbox LISTEN failed; polling only', error: String(error) }),
    );
    this.loop.start();
  }

  /**
   * Adds one job straight to the queue, its delivery id as the job id: only the publish-after-commit
   * demonstration calls this (the design publishes through the outbox rows).
   */
  async publishDirectly(job: InvoiceJob): Promise<void> {
    await this.queue.add(INVOICE_JOB_NAME, job, { jobId: job.deliveryId });
    this.metrics.invoicesEnqueued.inc();
  }

  /** Publishes what is pending now; resolves when the outbox is empty (for tests and shutdown). */
  async drain(): Promise<void> {
    this.loop.wake();
    await this.loop.idle();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
    await this.listener?.end().catch(() => undefined);
    await this.queue.close();
  }

  private async listen(): Promise<void> {
    const listener = new pg.Client(boundedConnection(this.config));
    listener.on('error', (error) => this.logger.warn({ msg: 'outbox listener error', error: error.message }));
    listener.on('notification', () => this.loop.wake());
    await listener.connect();
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
    this.listener = listener;
  }

  /**
   * One round: claim (one statement), publish (no transaction open: a stalled Redis holds no row lock and no
   * connection), mark (one statement). A publish that fails gives its rows back for the next round; a crash or a
   * stall past the lease between the publish and the mark lets a relay publish them again, which the queue
   * ignores (same job id) while the job is kept, and the worker's record of the invoice version dedupes after.
   * A full batch means there may be more: the next round follows at once.
   */
  private async round(): Promise<number> {
    const claimed = await this.invoices.claimUnpublished(
      this.config.outbox.batchSize,
      this.config.outbox.leaseMs,
    );
    const { rows } = claimed;
    if (rows.length === 0) return 0;
    try {
      await this.queue.addBulk(
        rows.map((row) => ({
          name: INVOICE_JOB_NAME,
          data: row.payload,
          // The request's trace, not this round's: the worker's deliveries then sit in the trace of the request.
          opts: {
            jobId: row.deliveryId,
            ...(row.traceContext === null ? {} : { telemetry: { metadata: row.traceContext } }),
          },
        })),
      );
    } catch (error) {
      await this.invoices.releaseClaims(claimed).catch(() => undefined);
      throw error;
    }
    await this.faults.trip(OrderFaultPoint.AfterPublish, { 'delivery-id': rows[0]?.deliveryId ?? '' });
    await this.invoices.markPublished(rows.map((row) => row.id));
    this.metrics.invoicesEnqueued.inc(rows.length);
    if (rows.length === this.config.outbox.batchSize) this.loop.wake();
    return rows.length;
  }
}
