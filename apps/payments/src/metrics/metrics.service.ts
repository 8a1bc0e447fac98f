import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell/telemetry';
import { CoordinateOutcome } from '@retry-safe/idempotency';

/**
 * Prometheus metrics of the payments service: the shared HTTP and upstream metrics, and its own (in the same registry;
 * `MetricsModule.forRoot(MetricsService)` provides it).
 */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Every event the idempotency coordinator reports (`hit`, `miss`, `in_progress`, `key_reuse`...). */
  readonly idempotencyEvents = this.idempotencyEventCounter();
  /** Payments answered with a Charge, by how it was obtained (`executed`, `replayed`, `unprotected`). */
  readonly payments = this.counterBy(
    'payments_total',
    'Payments answered with a Charge',
    'outcome',
    CoordinateOutcome,
  );
}
