import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What happened to a charge or email request that reached the handler. */
export const EffectOutcome = {
  /** A new charge or email. */
  Created: 'created',
  /** A duplicate key: the original was returned, nothing new happened. */
  Replayed: 'replayed',
  /** Refused (missing or reused key, invalid body). */
  Rejected: 'rejected',
} as const;
/** One of {@link EffectOutcome}'s values. */
export type EffectOutcome = (typeof EffectOutcome)[keyof typeof EffectOutcome];

/** Prometheus metrics of provider-sim, in a registry of its own (several apps can live in one test process). */
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
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  readonly charges = new Counter({
    name: 'provider_charges_total',
    help: 'POST /v1/charges calls by outcome (created, replayed, rejected)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly emails = new Counter({
    name: 'provider_emails_total',
    help: 'POST /v1/emails calls by outcome (created, replayed, rejected)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
