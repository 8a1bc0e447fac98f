import { Injectable } from '@nestjs/common';
import type { IdempotencyContext, IdempotentCallSettings } from '@retry-safe/idempotency';
import {
  IdempotencyContextArg,
  IdempotentMethod,
  outcomeOf,
  type IdempotentSettingsProvider,
} from '@retry-safe/idempotency/nest';

interface InvoiceJob {
  readonly invoiceId: string;
  readonly email: string;
}

/** The settings in force, asked on every call: flip them at run time and the next call follows. */
@Injectable()
export class InvoiceSettings implements IdempotentSettingsProvider<[InvoiceJob]> {
  enabled = true;

  idempotencySettings(): IdempotentCallSettings {
    return { enabled: this.enabled, inFlight: 'raise', leaseMs: 10_000 };
  }
}

@Injectable()
export class InvoiceSender {
  private sent = 0;

  /** Whoever calls it (a queue consumer, a cron job, a controller), one email per invoice. */
  @IdempotentMethod<[InvoiceJob], { emailId: string }>({
    operation: 'invoice.send',
    key: (job) => job.invoiceId,
    fingerprint: (job) => ({ email: job.email }),
    ttl: '7d',
    settingsProvider: InvoiceSettings,
  })
  async send(
    job: InvoiceJob,
    @IdempotencyContextArg() context?: IdempotencyContext,
  ): Promise<{ emailId: string }> {
    // The provider's own key, stable across every retry; the signal aborts if this owner lost its lease.
    context?.signal.throwIfAborted();
    this.sent += 1;
    return { emailId: `em_${this.sent}_${context?.fencingToken ?? 0}` };
  }

  /** The outcome of one call: `executed`, `replayed` or `unprotected` (the off switch). */
  async sendAndReport(job: InvoiceJob): Promise<string> {
    const { value, outcome } = await outcomeOf(this.send(job));
    return `${value.emailId}: ${outcome}`;
  }
}
