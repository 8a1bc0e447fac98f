import { z } from 'zod';
import { isIso4217Currency } from './currencies.js';

/** Largest amount of one payment, in minor units: 8 digits, the limit of the provider (as Stripe's). */
export const MAX_AMOUNT_MINOR = 99_999_999;

/** Body of `POST /v1/payments`: the internal command to charge an order. */
export const PaymentCommandSchema = z.strictObject({
  tenantId: z.uuid().transform((id) => id.toLowerCase()),
  orderId: z.uuid().transform((id) => id.toLowerCase()),
  /** Minor units (cents for USD). */
  amount: z.int().positive().max(MAX_AMOUNT_MINOR, `must be at most ${MAX_AMOUNT_MINOR} (minor units)`),
  currency: z
    .string()
    .refine(isIso4217Currency, { error: 'must be an ISO 4217 alpha-3 currency code, e.g. "EUR"' }),
});
/** A validated payment command. */
export type PaymentCommand = z.infer<typeof PaymentCommandSchema>;

/**
 * The result of a payment, stored by the coordinator and replayed as it is. Its key order is the order of this
 * shape: both a first answer and a replay go through `ChargeSchema.parse`, so they serialize to the same bytes.
 */
export const ChargeSchema = z.strictObject({
  /** Minted when the charge is made and stored with it: a replay returns the same id. */
  id: z.uuid(),
  orderId: z.uuid(),
  amount: z.int().positive(),
  currency: z.string().length(3),
  status: z.literal('succeeded'),
  /** The provider's id of the charge (`ch_<n>`). */
  providerChargeId: z.string().min(1),
});
/** A Charge. */
export type Charge = z.infer<typeof ChargeSchema>;
