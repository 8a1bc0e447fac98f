import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell';

/**
 * Prometheus metrics of the payments service: the shared HTTP and upstream metrics, and its own (in the same registry;
 * `MetricsModule.forRoot(MetricsService)` provides it).
 */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Every outcome the idempotency coordinator reports (`hit`, `miss`, `in_progress`, `key_reuse`...). */
  readonly idempotencyEvents = this.counter(
    'idempotency_events_total',
    'Idempotency coordinator outcomes by type',
    ['type'],
  );

  /** Payments answered with a Charge, by how it was obtained (`executed`, `replayed`, `unprotected`). */
  readonly payments = this.counter(
    'payments_total',
    'Payments answered with a Charge, by outcome (executed, replayed, unprotected)',
    ['outcome'],
  );
}
