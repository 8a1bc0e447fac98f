import { InvoiceJobSchema, type InvoiceJob } from '@retry-safe/contracts';
import { z } from 'zod';
import { InvalidInvoiceJobError } from '../common/worker-errors.js';

export { INVOICES_QUEUE, type InvoiceJob } from '@retry-safe/contracts';

/**
 * Validates a job's data against the contract orders publishes with (`InvoiceJobSchema` of
 * `@retry-safe/contracts`): a queue carries whatever a producer wrote.
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
