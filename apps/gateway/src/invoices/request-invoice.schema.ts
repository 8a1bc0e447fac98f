import { z } from 'zod';

/** Body of `POST /v1/orders/{orderId}/invoices`. */
export const RequestInvoiceSchema = z.strictObject({
  /** Invoice version; a new version is a new email, the same version is sent once. */
  version: z.int().min(1).max(1_000_000),
  email: z.email().max(254),
});
export type RequestInvoice = z.infer<typeof RequestInvoiceSchema>;
