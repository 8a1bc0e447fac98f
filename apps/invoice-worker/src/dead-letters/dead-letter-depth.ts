import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { MetricsService } from '../metrics/metrics.service.js';
import { DEAD_LETTER_QUEUE } from './dead-letter.js';

/**
 * `invoice_dead_letter_jobs`: the dead-letter queue's length, read from Redis at every scrape, so every worker
 * reports the same number and the alert (docs/operations.md) fires on a non-empty queue whatever restarted.
 */
@Injectable()
export class DeadLetterDepth implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @InjectQueue(DEAD_LETTER_QUEUE) private readonly deadLetters: Queue,
  ) {}

  onModuleInit(): void {
    this.metrics.gaugeReadOnScrape(
      'invoice_dead_letter_jobs',
      'Jobs waiting on the invoice dead-letter queue for a re-drive',
      () => this.deadLetters.getWaitingCount().catch(() => undefined),
    );
  }
}
