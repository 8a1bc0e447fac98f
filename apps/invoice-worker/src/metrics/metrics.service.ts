import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell/telemetry';
import { CoordinateOutcome } from '@retry-safe/idempotency';

/** How one delivery (one processing attempt of a job) ended. */
export const DeliveryOutcome = {
  /** Acknowledged: the job moved to completed. */
  Completed: 'completed',
  /** Not acknowledged; delivered again after the backoff (the horizon's, or BullMQ's attempts in the demo). */
  Retried: 'retried',
  /** The provider answered 429: back to wait, the queue paused, no attempt used. */
  Throttled: 'throttled',
  /** Failed for good (unrecoverable, or attempts spent). */
  Failed: 'failed',
} as const;
/** One of {@link DeliveryOutcome}'s values. */
export type DeliveryOutcome = (typeof DeliveryOutcome)[keyof typeof DeliveryOutcome];

/** Prometheus metrics of invoice-worker: the shell's HTTP metrics and its job metrics, in a registry of its own. */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Deliveries by outcome: `completed`, `retried`, `throttled`, `failed`. */
  readonly jobs = this.counterBy('invoice_jobs_total', 'Invoice job deliveries', 'outcome', DeliveryOutcome);

  readonly jobDuration = this.histogram(
    'invoice_job_duration_seconds',
    'Time spent processing one invoice job delivery',
    [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
  );

  /** Transient failures the retry horizon scheduled again, by the failure's code. */
  readonly retries = this.counter(
    'invoice_job_retries_total',
    'Transient delivery failures retried within the horizon, by code',
    ['code'],
  );

  /** 429s that paused the queue for the provider's Retry-After. */
  readonly throttles = this.counter(
    'invoice_job_throttles_total',
    'Mail provider 429 answers that paused the invoice queue',
  );

  /** Jobs moved to the dead-letter queue (their horizon ended). */
  readonly deadLetters = this.counter(
    'invoice_dead_letters_total',
    'Invoice jobs moved to the dead-letter queue after their retry horizon',
  );

  /** How each completed send was obtained: `executed`, `replayed` or `unprotected`. */
  readonly sends = this.counterBy('invoice_sends_total', 'Invoice sends', 'outcome', CoordinateOutcome);

  /** The coordinator's `onEvent`: hit, miss, in_progress, key_reuse, lease_lost, store_error... */
  readonly idempotencyEvents = this.idempotencyEventCounter();

  /** Faults fired at the job fault points (scenarios only). */
  readonly faults = this.counter(
    'invoice_job_faults_total',
    'Injected faults fired at job fault points, by point and action',
    ['point', 'action'],
  );
}
