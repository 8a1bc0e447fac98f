import { Inject, Injectable } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell';
import { APP_CONFIG, DedupMode, type AppConfig } from '../config/app-config.js';
import type { ProviderSettings } from '../config/provider-settings.js';
import { simulateLatency } from '../common/latency.js';
import { parseBody, parseIdempotencyKey } from '../common/request-parsing.js';
import { IdempotentLedger } from '../ledger/idempotent-ledger.js';
import { EffectOutcome, MetricsService } from '../metrics/metrics.service.js';
import {
  ChargeRequestSchema,
  type Charge,
  type ChargeLedgerRow,
  type ChargeRequest,
} from './charge.schema.js';

/** The simulated payment provider: charges once per `Idempotency-Key` (unless dedup is off). */
@Injectable()
export class ChargesService {
  private readonly ledger: IdempotentLedger<ChargeRequest>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    // `PROVIDER_DEDUP` in force: start-up, or a scenario's `PUT /__config`.
    settings: RuntimeSettings<ProviderSettings>,
  ) {
    this.ledger = new IdempotentLedger<ChargeRequest>({
      idPrefix: 'ch_',
      dedup: () => settings.current.dedup === DedupMode.On,
      // Like Stripe: the same key with another amount or currency is refused, not charged.
      fingerprint: ({ amount, currency }) => ({ amount, currency: currency.toLowerCase() }),
    });
  }

  /**
   * Charges, or returns the charge already made under this key.
   * @throws the provider's validation and key errors (see `ProviderErrorCode`).
   */
  async charge(
    idempotencyKeyHeader: string | readonly string[] | undefined,
    body: unknown,
  ): Promise<{ charge: Charge; replayed: boolean }> {
    this.ledger.countCall();
    try {
      const key = parseIdempotencyKey(idempotencyKeyHeader);
      const request = parseBody(ChargeRequestSchema, body);
      // Latency first: the ledger's check-and-insert below must stay one synchronous step.
      await simulateLatency(this.config.latencyMs);
      const { entry, replayed } = this.ledger.record(key, request);
      this.metrics.charges.inc({ outcome: replayed ? EffectOutcome.Replayed : EffectOutcome.Created });
      const { amount, currency } = entry.params;
      return { charge: { id: entry.id, amount, currency, status: 'succeeded' }, replayed };
    } catch (error) {
      this.metrics.charges.inc({ outcome: EffectOutcome.Rejected });
      throw error;
    }
  }

  /** Every call received and every charge made since the last reset. */
  list(): { calls: number; charges: ChargeLedgerRow[] } {
    const { calls, entries } = this.ledger.snapshot();
    return {
      calls,
      charges: entries.map((e) => ({
        id: e.id,
        idempotencyKey: e.idempotencyKey,
        amount: e.params.amount,
        currency: e.params.currency,
        createdAt: e.createdAt,
      })),
    };
  }

  reset(): void {
    this.ledger.reset();
  }
}
