import { Inject, Injectable } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell';
import { CoordinateOutcome, schemaCodec, type IdempotencyCoordinator } from '@retry-safe/idempotency';
import { IDEMPOTENCY_COORDINATOR } from '@retry-safe/idempotency/nest';
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
 * Sends an invoice version at most once per recipient, whatever the number of deliveries.
 *
 * The coordinator runs in `raise` mode here (set on the module): a worker must not block a slot waiting for
 * another worker's send. A duplicate delivery that finds the key held throws `IDEMPOTENCY_IN_PROGRESS`, the job is
 * not acknowledged, and BullMQ delivers it again after its backoff, by which time the receipt is stored.
 */
@Injectable()
export class InvoiceSender {
  constructor(
    @Inject(IDEMPOTENCY_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly mail: MailProviderClient,
    private readonly faults: JobFaults,
    // `IDEMPOTENCY_ENABLED` in force: start-up, or a scenario's `PUT /__config`.
    private readonly settings: RuntimeSettings<WorkerSettings>,
  ) {}

  /**
   * Sends (or replays) the invoice of `job`.
   * @throws the coordinator's `IDEMPOTENCY_*` errors and the mail client's errors, unchanged.
   */
  async send(job: InvoiceJob, jobId: string): Promise<SendResult> {
    const identity = invoiceIdempotency(job);
    const action = async (): Promise<InvoiceReceipt> => {
      const receipt = await this.mail.send(
        {
          to: job.email,
          subject: `Invoice for order ${job.orderId} (version ${job.invoiceVersion})`,
          body: `Please find your invoice for order ${job.orderId}, version ${job.invoiceVersion}.`,
        },
        { idempotencyKey: identity.providerKey, requestId: job.deliveryId },
      );
      // Inside the action: the provider sent, the record is not saved yet (the lease still holds the key).
      await this.faults.trip(JobFaultPoint.AfterSend, { jobId, deliveryId: job.deliveryId });
      return receipt;
    };

    if (!this.settings.current.enabled) {
      // The unprotected design, kept for scenarios: every delivery sends.
      return { receipt: await action(), outcome: CoordinateOutcome.Unprotected };
    }
    const { value, outcome } = await this.coordinator.coordinateWithOutcome(
      {
        operation: identity.operation,
        key: identity.key,
        ttlMs: INVOICE_RESULT_TTL_MS,
        codec,
        fingerprint: identity.fingerprint,
      },
      action,
    );
    return { receipt: value, outcome };
  }
}
