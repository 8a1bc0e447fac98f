import { Injectable } from '@nestjs/common';
import { HttpMetrics } from '@retry-safe/app-shell/telemetry';

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
  readonly charges = this.counterBy(
    'provider_charges_total',
    'POST /v1/charges calls',
    'outcome',
    EffectOutcome,
  );
  readonly emails = this.counterBy(
    'provider_emails_total',
    'POST /v1/emails calls',
    'outcome',
    EffectOutcome,
  );
}
