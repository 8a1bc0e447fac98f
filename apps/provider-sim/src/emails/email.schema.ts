import { z } from 'zod';
import type { EffectDefinition } from '../ledger/simulated-effect.js';

/** Body of `POST /v1/emails`. */
export const EmailRequestSchema = z.object({
  to: z.email({ error: 'must be an email address' }),
  subject: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  body: z.string({ error: 'must be a string' }).max(100_000, 'must be at most 100000 characters').optional(),
});
/** A validated email request. */
export type EmailRequest = z.output<typeof EmailRequestSchema>;

/** What `POST /v1/emails` answers (the same body for the first call and for every duplicate). */
export interface EmailReceipt {
  emailId: string;
}

/** One row of `GET /v1/emails`. */
export interface EmailLedgerRow {
  id: string;
  idempotencyKey: string;
  to: string;
  createdAt: string;
}

/** `POST /v1/emails` on the ledger: `em_` ids, listed as `{calls, emails}`. */
export const EMAILS: EffectDefinition<EmailRequest, EmailReceipt, EmailLedgerRow, 'emails'> = {
  plural: 'emails',
  idPrefix: 'em_',
  schema: EmailRequestSchema,
  // The same key for another recipient or subject is refused, not sent.
  fingerprint: ({ to, subject }) => ({ to: to.toLowerCase(), subject }),
  answer: ({ id }) => ({ emailId: id }),
  row: ({ id, idempotencyKey, params: { to }, createdAt }) => ({ id, idempotencyKey, to, createdAt }),
};
