import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of the payments service, in a registry of its own. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  /** Requests by method, route template and status (`aborted` when the socket closed without a response). */
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Attempts sent to a downstream service (first attempts and retries). */
  readonly upstreamAttempts = new Counter({
    name: 'upstream_attempts_total',
    help: 'Attempts sent to a downstream service',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
  });

  /** Retries after a network error, a timeout or a 502/503/504, by what failed. */
  readonly upstreamRetries = new Counter({
    name: 'upstream_retries_total',
    help: 'Retries of calls to a downstream service, by the failure that caused them',
    labelNames: ['upstream', 'reason'] as const,
    registers: [this.registry],
  });

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
