import { Injectable } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { schemaCodec, type CoordinateOutcome, type IdempotentCallSettings } from '@retry-safe/idempotency';
import { IdempotentMethod, outcomeOf, type IdempotentSettingsProvider } from '@retry-safe/idempotency/nest';
import type { WorkerSettings } from '../config/worker-settings.js';
import { JobFaultPoint, JobFaults } from '../faults/job-faults.js';
import { MailProviderClient } from '../mail/mail-provider.client.js';
import { INVOICE_RESULT_TTL_MS, invoiceIdempotency } from './invoice-idempotency.js';
import { InvoiceReceiptSchema, type InvoiceJob, type InvoiceReceipt } from './invoice-job.js';

/** What {@link InvoiceSender.send} did. */
export interface SendResult {
  readonly receipt: InvoiceReceipt;
  /** `executed` (sent now), `replayed` (sent before, stored receipt returned) or `unprotected` (coordinator off). */
  readonly outcome: CoordinateOutcome;
}

const codec = schemaCodec(InvoiceReceiptSchema);

/**
 * The off switch of the sends, asked by the library on every send: `IDEMPOTENCY_ENABLED` in force (start-up, or a
 * scenario's `PUT /__config`); off, every delivery sends (the unprotected design, kept for scenarios).
 */
@Injectable()
export class InvoiceSendSettings implements IdempotentSettingsProvider<[InvoiceJob, string]> {
  constructor(private readonly settings: RuntimeSettings<WorkerSettings>) {}

  idempotencySettings(): IdempotentCallSettings {
    return { enabled: this.settings.current.enabled };
  }
}

/**
 * Sends an invoice version at most once per recipient, whatever the number of deliveries.
 *
 * The coordinator runs in `raise` mode here (set on the module): a worker must not block a slot waiting for
 * another worker's send. A duplicate delivery that finds the key held throws `IDEMPOTENCY_IN_PROGRESS`, the job is
 * not acknowledged, and BullMQ delivers it again after its backoff, by which time the receipt is stored.
 */
@Injectable()
export class InvoiceSender {
  constructor(
    private readonly mail: MailProviderClient,
    private readonly faults: JobFaults,
  ) {}

  /**
   * Sends (or replays) the invoice of `job`.
   * @throws the coordinator's `IDEMPOTENCY_*` errors and the mail client's errors, unchanged.
   */
  async send(job: InvoiceJob, jobId: string): Promise<SendResult> {
    const { value, outcome } = await outcomeOf(this.sendOnce(job, jobId));
    return { receipt: value, outcome };
  }

  // The record: `mail.invoice.<tenant>` and `<order>.v<version>` (never the delivery), the recipient compared.
  @IdempotentMethod<[InvoiceJob, string], InvoiceReceipt>({
    operation: (job) => invoiceIdempotency(job).operation,
    key: (job) => invoiceIdempotency(job).key,
    fingerprint: (job) => invoiceIdempotency(job).fingerprint,
    ttl: INVOICE_RESULT_TTL_MS,
    codec,
    settingsProvider: InvoiceSendSettings,
  })
  private async sendOnce(job: InvoiceJob, jobId: string): Promise<InvoiceReceipt> {
    const receipt = await this.mail.send(
      {
        to: job.email,
        subject: `Invoice for order ${job.orderId} (version ${job.invoiceVersion})`,
        body: `Please find your invoice for order ${job.orderId}, version ${job.invoiceVersion}.`,
      },
      { idempotencyKey: invoiceIdempotency(job).providerKey, requestId: job.deliveryId },
    );
    // Inside the action: the provider sent, the record is not saved yet (the lease still holds the key).
    await this.faults.trip(JobFaultPoint.AfterSend, { jobId, deliveryId: job.deliveryId });
    return receipt;
  }
}
