import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell';
import { Counter, Histogram } from 'prom-client';

/** How one delivery (one processing attempt of a job) ended. */
export const DeliveryOutcome = {
  /** Acknowledged: the job moved to completed. */
  Completed: 'completed',
  /** Not acknowledged; BullMQ delivers it again after the backoff. */
  Retried: 'retried',
  /** Failed for good (unrecoverable, or attempts spent). */
  Failed: 'failed',
} as const;
/** One of {@link DeliveryOutcome}'s values. */
export type DeliveryOutcome = (typeof DeliveryOutcome)[keyof typeof DeliveryOutcome];

/** Prometheus metrics of invoice-worker: the shell's HTTP metrics and its job metrics, in a registry of its own. */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Deliveries by outcome: `completed`, `retried`, `failed`. */
  readonly jobs = new Counter({
    name: 'invoice_jobs_total',
    help: 'Invoice job deliveries by outcome (completed, retried, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'invoice_job_duration_seconds',
    help: 'Time spent processing one invoice job delivery',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  /** How each completed send was obtained: `executed`, `replayed` or `unprotected`. */
  readonly sends = new Counter({
    name: 'invoice_sends_total',
    help: 'Invoice sends by how the receipt was obtained (executed, replayed, unprotected)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** The coordinator's `onEvent`: hit, miss, in_progress, key_reuse, lease_lost, store_error... */
  readonly idempotencyEvents = new Counter({
    name: 'idempotency_events_total',
    help: 'Idempotency coordinator events by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  /** Faults fired at the job fault points (scenarios only). */
  readonly faults = new Counter({
    name: 'invoice_job_faults_total',
    help: 'Injected faults fired at job fault points, by point and action',
    labelNames: ['point', 'action'] as const,
    registers: [this.registry],
  });
}
