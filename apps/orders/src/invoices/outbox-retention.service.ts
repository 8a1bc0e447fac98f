import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
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
export class OutboxRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRetention.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly invoices: InvoicesRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.outbox.cleanupIntervalMs);
    void this.sweep();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep (or the one running): resolves to the rows it deleted; a failed sweep waits for the next. */
  sweep(): Promise<number> {
    this.running ??= this.deleteExpired()
      .catch((error: unknown) => {
        this.logger.warn({ msg: 'outbox cleanup failed; retried next interval', error: String(error) });
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async deleteExpired(): Promise<number> {
    const { retentionMs, cleanupBatchSize } = this.config.outbox;
    let total = 0;
    for (;;) {
      const deleted = await this.invoices.deletePublished(retentionMs, cleanupBatchSize);
      total += deleted;
      if (deleted < cleanupBatchSize || this.stopped) break;
    }
    if (total > 0) this.logger.log({ msg: 'published outbox rows deleted', rows: total, retentionMs });
    return total;
  }
}
