import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { IntervalLoop } from '@retry-safe/app-shell';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { InvoicesRepository } from './invoices.repository.js';

/**
 * Deletes published outbox rows once they are older than `OUTBOX_RETENTION_MS`, so the table holds what is still
 * to publish and a bounded tail, not every delivery ever made. Every `OUTBOX_CLEANUP_INTERVAL_MS` (and once at
 * start-up) it deletes batches of `OUTBOX_CLEANUP_BATCH_SIZE` until one comes back short: a backlog is cleared in
 * one sweep, each batch its own short statement. A row's request keeps `published_at`, so the order still reads
 * `published`. Every replica sweeps; two at once delete disjoint rows or nothing.
 */
@Injectable()
export class OutboxRetention implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRetention.name);
  private readonly loop: IntervalLoop<number>;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly invoices: InvoicesRepository,
  ) {
    this.loop = new IntervalLoop(
      {
        name: OutboxRetention.name,
        periodMs: config.outbox.cleanupIntervalMs,
        tickTimeoutMs: config.outbox.cleanupIntervalMs,
        immediate: true,
        failureMessage: 'outbox cleanup failed; retried next interval',
      },
      (signal) => this.deleteExpired(signal),
    );
  }

  onModuleInit(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One sweep (or the one running): resolves to the rows it deleted; a failed sweep waits for the next. */
  async sweep(): Promise<number> {
    return (await this.loop.run()) ?? 0;
  }

  private async deleteExpired(signal: AbortSignal): Promise<number> {
    const { retentionMs, cleanupBatchSize } = this.config.outbox;
    let total = 0;
    for (;;) {
      const deleted = await this.invoices.deletePublished(retentionMs, cleanupBatchSize);
      total += deleted;
      if (deleted < cleanupBatchSize || signal.aborted) break;
    }
    if (total > 0) this.logger.log({ msg: 'published outbox rows deleted', rows: total, retentionMs });
    return total;
  }
}
