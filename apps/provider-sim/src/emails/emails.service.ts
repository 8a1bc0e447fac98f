import { Inject, Injectable } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell';
import { APP_CONFIG, DedupMode, type AppConfig } from '../config/app-config.js';
import type { ProviderSettings } from '../config/provider-settings.js';
import { simulateLatency } from '../common/latency.js';
import { parseBody, parseIdempotencyKey } from '../common/request-parsing.js';
import { IdempotentLedger } from '../ledger/idempotent-ledger.js';
import { EffectOutcome, MetricsService } from '../metrics/metrics.service.js';
import {
  EmailRequestSchema,
  type EmailLedgerRow,
  type EmailReceipt,
  type EmailRequest,
} from './email.schema.js';

/** The simulated mail provider: sends once per `Idempotency-Key` (unless dedup is off). */
@Injectable()
export class EmailsService {
  private readonly ledger: IdempotentLedger<EmailRequest>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    // `PROVIDER_DEDUP` in force: start-up, or a scenario's `PUT /__config`.
    settings: RuntimeSettings<ProviderSettings>,
  ) {
    this.ledger = new IdempotentLedger<EmailRequest>({
      idPrefix: 'em_',
      dedup: () => settings.current.dedup === DedupMode.On,
      // The same key for another recipient or subject is refused, not sent.
      fingerprint: ({ to, subject }) => ({ to: to.toLowerCase(), subject }),
    });
  }

  /**
   * Sends, or returns the email already sent under this key.
   * @throws the provider's validation and key errors (see `ProviderErrorCode`).
   */
  async send(
    idempotencyKeyHeader: string | readonly string[] | undefined,
    body: unknown,
  ): Promise<{ receipt: EmailReceipt; replayed: boolean }> {
    this.ledger.countCall();
    try {
      const key = parseIdempotencyKey(idempotencyKeyHeader);
      const request = parseBody(EmailRequestSchema, body);
      // Latency first: the ledger's check-and-insert below must stay one synchronous step.
      await simulateLatency(this.config.latencyMs);
      const { entry, replayed } = this.ledger.record(key, request);
      this.metrics.emails.inc({ outcome: replayed ? EffectOutcome.Replayed : EffectOutcome.Created });
      return { receipt: { emailId: entry.id }, replayed };
    } catch (error) {
      this.metrics.emails.inc({ outcome: EffectOutcome.Rejected });
      throw error;
    }
  }

  /** Every call received and every email sent since the last reset. */
  list(): { calls: number; emails: EmailLedgerRow[] } {
    const { calls, entries } = this.ledger.snapshot();
    return {
      calls,
      emails: entries.map((e) => ({
        id: e.id,
        idempotencyKey: e.idempotencyKey,
        to: e.params.to,
        createdAt: e.createdAt,
      })),
    };
  }

  reset(): void {
    this.ledger.reset();
  }
}
