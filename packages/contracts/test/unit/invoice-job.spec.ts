import { describe, expect, it } from '@jest/globals';
import {
  InvoiceJobSchema,
  InvoiceRequestSchema as RequestInvoiceSchema,
  MAX_EMAIL_LENGTH,
  MAX_INVOICE_VERSION,
} from '../../src/invoice-job.js';

const job = {
  deliveryId: '0b6f2d1e-3f7a-4c1b-9d2e-5a6b7c8d9e0f',
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
  orderId: '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978',
  invoiceVersion: 1,
  email: 'billing@example.com',
};

describe('InvoiceJobSchema (the contract with the invoice worker)', () => {
  it('accepts a well-formed job as it is', () => {
    expect(InvoiceJobSchema.parse(job)).toEqual(job);
  });

  it.each([
    ['a delivery id that is not a UUID', { ...job, deliveryId: 'd-1' }],
    ['version 0', { ...job, invoiceVersion: 0 }],
    ['a fractional version', { ...job, invoiceVersion: 1.5 }],
    ['a bad email', { ...job, email: 'billing' }],
    ['a missing order', { ...job, orderId: undefined }],
    ['an unknown field', { ...job, priority: 1 }],
    // The bounds the worker's copy had and the producer's lacked: a job over them was enqueued and never sent.
    ['a version over the maximum', { ...job, invoiceVersion: MAX_INVOICE_VERSION + 1 }],
    ['an email over 254 characters', { ...job, email: `${'a'.repeat(243)}@example.com` }],
  ])('refuses %s', (_label, candidate) => {
    expect(InvoiceJobSchema.safeParse(candidate).success).toBe(false);
  });
});

describe('InvoiceRequestSchema', () => {
  it('takes a version and an email', () => {
    expect(RequestInvoiceSchema.parse({ version: 2, email: 'a@example.com' })).toEqual({
      version: 2,
      email: 'a@example.com',
    });
    expect(RequestInvoiceSchema.safeParse({ version: 2 }).success).toBe(false);
  });

  it('has the bounds of the job it becomes', () => {
    expect(
      RequestInvoiceSchema.safeParse({ version: MAX_INVOICE_VERSION, email: 'a@example.com' }).success,
    ).toBe(true);
    expect(
      RequestInvoiceSchema.safeParse({ version: MAX_INVOICE_VERSION + 1, email: 'a@example.com' }).success,
    ).toBe(false);
    const email = `${'a'.repeat(MAX_EMAIL_LENGTH - 12)}@example.com`;
    expect(email).toHaveLength(MAX_EMAIL_LENGTH);
    expect(RequestInvoiceSchema.safeParse({ version: 1, email }).success).toBe(true);
    expect(RequestInvoiceSchema.safeParse({ version: 1, email: `a${email}` }).success).toBe(false);
  });
});
