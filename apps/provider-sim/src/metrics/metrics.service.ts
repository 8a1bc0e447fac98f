import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell';
import { Counter } from 'prom-client';

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

/**
 * Prometheus metrics of provider-sim: the shell's HTTP metrics and its own, in one registry of its own (several
 * apps can live in one test process).
 */
@Injectable()
export class MetricsService extends HttpMetrics {
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
}
