import { describe, expect, it } from '@jest/globals';
import { INVOICE_RESULT_TTL_MS, invoiceIdempotency } from '../../src/invoices/invoice-idempotency.js';
import type { InvoiceJob } from '../../src/invoices/invoice-job.js';

const job: InvoiceJob = {
  deliveryId: '0b9a5c0e-6a53-4d55-9a39-2f0d6f4b3a11',
  tenantId: 'A1B2C3D4-0000-4000-8000-00000000000A',
  orderId: '9f8e7d6c-1111-4222-8333-444455556666',
  invoiceVersion: 3,
  email: 'ada@example.com',
};

describe('invoiceIdempotency', () => {
  it('scopes by tenant and keys by order and version', () => {
    expect(invoiceIdempotency(job)).toEqual({
      operation: 'mail.invoice.a1b2c3d400004000800000000000000a',
      key: '9f8e7d6c111142228333444455556666.v3',
      fingerprint: { email: 'ada@example.com' },
      providerKey: 'mail.invoice.a1b2c3d400004000800000000000000a.9f8e7d6c111142228333444455556666.v3',
    });
  });

  it('ignores the delivery id: every delivery of one version maps to one record', () => {
    const other = invoiceIdempotency({ ...job, deliveryId: '5d4c3b2a-0000-4000-8000-000000000000' });
    expect(other).toEqual(invoiceIdempotency(job));
  });

  it('gives another version another key and another address another fingerprint', () => {
    expect(invoiceIdempotency({ ...job, invoiceVersion: 4 }).key).toBe('9f8e7d6c111142228333444455556666.v4');
    expect(invoiceIdempotency({ ...job, email: 'eve@example.com' }).fingerprint).not.toEqual(
      invoiceIdempotency(job).fingerprint,
    );
  });

  it('keeps receipts 24 hours', () => {
    expect(INVOICE_RESULT_TTL_MS).toBe(86_400_000);
  });
});
