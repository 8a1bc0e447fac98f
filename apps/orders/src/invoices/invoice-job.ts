import { z } from 'zod';

/** Name of the BullMQ queue of invoice emails (the invoice worker consumes it). */
export const INVOICES_QUEUE = 'invoices';

/** Name of the jobs orders adds to {@link INVOICES_QUEUE}. */
export const INVOICE_JOB_NAME = 'invoice';

/**
 * The job orders publishes and the invoice worker consumes. Apps never import each other: the worker keeps its own
 * copy of this schema, and this JSON shape is the contract between them.
 */
export const InvoiceJobSchema = z.strictObject({
  /** New on every publication: two deliveries of one invoice have two delivery ids. */
  deliveryId: z.uuid(),
  tenantId: z.uuid(),
  orderId: z.uuid(),
  /** A new version is a new email; the same version is sent once. */
  invoiceVersion: z.int().min(1),
  email: z.email(),
});
/** One invoice delivery. */
export type InvoiceJob = z.infer<typeof InvoiceJobSchema>;

/** Body of `POST /v1/orders/{orderId}/invoices`. */
export const RequestInvoiceSchema = z.strictObject({
  version: z.int().min(1),
  email: z.email(),
});
/** A request for an invoice email. */
export type RequestInvoice = z.infer<typeof RequestInvoiceSchema>;
