import { z } from 'zod';
import { InvalidInvoiceJobError } from '../common/worker-errors.js';

/** The BullMQ queue invoices are published to (by orders) and consumed from (by this worker). */
export const INVOICES_QUEUE = 'invoices';

/**
 * The job contract, validated here because a queue carries whatever a producer wrote. Apps never share code, so
 * the producer (orders) keeps its own copy of this type; the JSON shape is the contract:
 * `{deliveryId, tenantId, orderId, invoiceVersion, email}`.
 */
export const InvoiceJobSchema = z.object({
  /** New for every publication: two deliveries of one invoice have different ids (a producer retry). */
  deliveryId: z.uuid({ error: 'must be a UUID' }),
  tenantId: z.uuid({ error: 'must be a UUID' }),
  orderId: z.uuid({ error: 'must be a UUID' }),
  /** A corrected invoice is a new version, hence a new email. */
  invoiceVersion: z
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(1, 'must be 1 or more')
    .max(1_000_000, 'must be at most 1000000'),
  email: z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters'),
});
/** One invoice delivery, as published on the `invoices` queue. */
export type InvoiceJob = z.output<typeof InvoiceJobSchema>;

/**
 * Validates a job's data against the contract.
 * @throws {@link InvalidInvoiceJobError} with one line per problem.
 */
export function parseInvoiceJob(data: unknown): InvoiceJob {
  const parsed = InvoiceJobSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new InvalidInvoiceJobError(
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`),
    { cause: parsed.error },
  );
}

/** What a completed job returns (its BullMQ `returnvalue`), the same for every delivery of one invoice version. */
export const InvoiceReceiptSchema = z.object({ emailId: z.string().min(1) });
/** The receipt of a sent invoice. */
export type InvoiceReceipt = z.output<typeof InvoiceReceiptSchema>;
