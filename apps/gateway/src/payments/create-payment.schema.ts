import { z } from 'zod';
import { isIso4217Currency } from './currencies.js';

/** Largest amount of one payment, in minor units: 8 digits, the limit of the provider (as Stripe's). */
export const MAX_AMOUNT_MINOR = 99_999_999;

/** Body of `POST /v1/orders/{orderId}/payments`. */
export const CreatePaymentSchema = z.strictObject({
  /** Minor units (cents for USD): a positive integer, so no float ever carries money. */
  amount: z.int().positive().max(MAX_AMOUNT_MINOR, `must be at most ${MAX_AMOUNT_MINOR} (minor units)`),
  currency: z
    .string()
    .refine(isIso4217Currency, { error: 'must be an ISO 4217 alpha-3 currency code, e.g. "EUR"' }),
});
export type CreatePayment = z.infer<typeof CreatePaymentSchema>;
