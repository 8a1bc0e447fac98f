import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell';
import { Counter } from 'prom-client';

/**
 * Prometheus metrics of the payments service: the shared HTTP and upstream metrics, and its own (in the same registry;
 * `MetricsModule.forRoot(MetricsService)` provides it).
 */
@Injectable()
export class MetricsService extends HttpMetrics {
  /** Every outcome the idempotency coordinator reports (`hit`, `miss`, `in_progress`, `key_reuse`...). */
  readonly idempotencyEvents = new Counter({
    name: 'idempotency_events_total',
    help: 'Idempotency coordinator outcomes by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  /** Payments answered with a Charge, by how it was obtained (`executed`, `replayed`, `unprotected`). */
  readonly payments = new Counter({
    name: 'payments_total',
    help: 'Payments answered with a Charge, by outcome (executed, replayed, unprotected)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
}
