import { z } from 'zod';
import type { EffectDefinition } from '../ledger/simulated-effect.js';

/** Body of `POST /v1/charges`. */
export const ChargeRequestSchema = z.object({
  amount: z
    .number({ error: 'must be a number' })
    .int('must be an integer (minor units)')
    .positive('must be positive')
    .max(99_999_999, 'must be at most 99999999'),
  currency: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 alpha-3 code'),
  /** Free text for the caller's reconciliation; not part of the deduplication fingerprint. */
  reference: z.string().max(255, 'must be at most 255 characters').optional(),
});
/** A validated charge request. */
export type ChargeRequest = z.output<typeof ChargeRequestSchema>;

/** What `POST /v1/charges` answers (the same body for the first call and for every duplicate). */
export interface Charge {
  id: string;
  amount: number;
  currency: string;
  status: 'succeeded';
}

/** One row of `GET /v1/charges`. */
export interface ChargeLedgerRow {
  id: string;
  idempotencyKey: string;
  amount: number;
  currency: string;
  createdAt: string;
}

/** `POST /v1/charges` on the ledger: `ch_` ids, listed as `{calls, charges}`. */
export const CHARGES: EffectDefinition<ChargeRequest, Charge, ChargeLedgerRow, 'charges'> = {
  plural: 'charges',
  idPrefix: 'ch_',
  schema: ChargeRequestSchema,
  // Like Stripe: the same key with another amount or currency is refused, not charged.
  fingerprint: ({ amount, currency }) => ({ amount, currency: currency.toLowerCase() }),
  answer: ({ id, params: { amount, currency } }) => ({ id, amount, currency, status: 'succeeded' }),
  row: ({ id, idempotencyKey, params: { amount, currency }, createdAt }) => ({
    id,
    idempotencyKey,
    amount,
    currency,
    createdAt,
  }),
};
