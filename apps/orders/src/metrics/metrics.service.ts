import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell/telemetry';

/**
 * Prometheus metrics of the orders service: the shared HTTP and upstream metrics, and its own (in the same registry;
 * `MetricsModule.forRoot(MetricsService)` provides it).
 */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Invoice jobs put on the `invoices` queue (one per call: a producer retry is a second delivery). */
  readonly invoicesEnqueued = this.counter(
    'invoice_jobs_enqueued_total',
    'Invoice jobs added to the invoices queue',
  );
}
