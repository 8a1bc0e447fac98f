import { describe, expect, it } from '@jest/globals';
import { InvoiceJobSchema, RequestInvoiceSchema } from '../../src/invoices/invoice-job.js';

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
  ])('refuses %s', (_label, candidate) => {
    expect(InvoiceJobSchema.safeParse(candidate).success).toBe(false);
  });
});

describe('RequestInvoiceSchema', () => {
  it('takes a version and an email', () => {
    expect(RequestInvoiceSchema.parse({ version: 2, email: 'a@example.com' })).toEqual({
      version: 2,
      email: 'a@example.com',
    });
    expect(RequestInvoiceSchema.safeParse({ version: 2 }).success).toBe(false);
  });
});
