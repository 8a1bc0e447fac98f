import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { MetricsService } from '../metrics/metrics.service.js';
import { INVOICES_QUEUE } from './invoice-job.js';

/** The job states counted as the queue's depth: published or retried, not yet taken by a worker. */
const QUEUED_STATES = ['wait', 'prioritized', 'delayed'] as const;

/**
 * `invoice_queue_jobs`: the invoices waiting on the queue (waiting, prioritized, delayed for a retry; a queue paused by a 429 keeps its jobs waiting), read
 * from Redis at every scrape, so every worker reports the same number. A depth that keeps growing is a worker
 * fleet that does not keep up, or a mail provider that refuses.
 */
@Injectable()
export class QueueDepth implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @InjectQueue(INVOICES_QUEUE) private readonly queue: Queue,
  ) {}

  onModuleInit(): void {
    this.metrics.gaugeReadOnScrape(
      'invoice_queue_jobs',
      'Invoice jobs on the queue not yet taken by a worker (waiting, prioritized, delayed)',
      async () => {
        const counts = await this.queue.getJobCounts(...QUEUED_STATES).catch(() => undefined);
        return counts === undefined ? undefined : Object.values(counts).reduce((sum, n) => sum + n, 0);
      },
    );
  }
}
