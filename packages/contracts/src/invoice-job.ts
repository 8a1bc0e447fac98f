import { z } from 'zod';

/** The BullMQ queue invoices are published to (by orders) and consumed from (by invoice-worker). */
export const INVOICES_QUEUE = 'invoices';

/** Name of the jobs orders adds to {@link INVOICES_QUEUE}. */
export const INVOICE_JOB_NAME = 'invoice';

/** Highest invoice version: a bound both sides of the queue agree on, so no job is accepted that cannot be sent. */
export const MAX_INVOICE_VERSION = 1_000_000;

/** Longest recipient address (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;

/** An invoice version: a corrected invoice is a new version, hence a new email; one version is sent once. */
export const InvoiceVersionSchema = z
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be 1 or more')
  .max(MAX_INVOICE_VERSION, `must be at most ${MAX_INVOICE_VERSION}`);

/** The invoice's recipient. */
export const InvoiceEmailSchema = z
  .email({ error: 'must be an email address' })
  .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`);

/**
 * The job orders publishes and invoice-worker consumes, validated on both sides with this one schema: a queue
 * carries whatever a producer wrote, and a job the worker would refuse must never be enqueued.
 */
export const InvoiceJobSchema = z.strictObject({
  /** New for every publication: two deliveries of one invoice have different ids (a producer retry). */
  deliveryId: z.uuid({ error: 'must be a UUID' }),
  tenantId: z.uuid({ error: 'must be a UUID' }),
  orderId: z.uuid({ error: 'must be a UUID' }),
  invoiceVersion: InvoiceVersionSchema,
  email: InvoiceEmailSchema,
});
/** One invoice delivery, as published on the `invoices` queue. */
export type InvoiceJob = z.output<typeof InvoiceJobSchema>;

/** Body of `POST /v1/orders/{orderId}/invoices` (the gateway's public route and orders' internal one alike). */
export const InvoiceRequestSchema = z.strictObject({
  version: InvoiceVersionSchema,
  email: InvoiceEmailSchema,
});
/** A request for an invoice email. */
export type InvoiceRequest = z.output<typeof InvoiceRequestSchema>;
