import type { InvoiceJob } from './invoice-job.js';

/** How long a sent invoice's receipt is kept: redeliveries and producer retries within a day replay it. */
export const INVOICE_RESULT_TTL_MS = 24 * 60 * 60 * 1000;

/** Where one invoice version's idempotency record lives, and the key the mail provider deduplicates by. */
export interface InvoiceIdempotency {
  /** `mail.invoice.<tenantId hex>`: scoping by tenant keeps tenants' keys apart. */
  readonly operation: string;
  /** `<orderId hex>.v<version>`: the invoice version, not the delivery, so every delivery maps to one record. */
  readonly key: string;
  /** What must match for a replay: the recipient (the same version to another address is `IDEMPOTENCY_KEY_REUSE`). */
  readonly fingerprint: { readonly email: string };
  /**
   * `<operation>.<key>`, sent as the provider's `Idempotency-Key`: if this worker dies after the provider sent but
   * before the record was saved, the next owner's send is deduplicated by the provider.
   */
  readonly providerKey: string;
}

const hex = (uuid: string): string => uuid.replaceAll('-', '').toLowerCase();

/** Derives the idempotency identity of an invoice job (deliveryId plays no part: it differs per publication). */
export function invoiceIdempotency(job: InvoiceJob): InvoiceIdempotency {
  const operation = `mail.invoice.${hex(job.tenantId)}`;
  const key = `${hex(job.orderId)}.v${job.invoiceVersion}`;
  return {
    operation,
    key,
    fingerprint: { email: job.email },
    providerKey: `${operation}.${key}`,
  };
}
