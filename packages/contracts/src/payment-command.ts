import { z } from 'zod';
import { isIso4217Currency } from './currencies.js';

/** Largest amount of one payment, in minor units: 8 digits, the limit of the provider (as Stripe's). */
export const MAX_AMOUNT_MINOR = 99_999_999;

/** An amount in minor units (cents for USD): a positive integer, so no float ever carries money. */
export const AmountMinorSchema = z
  .int()
  .positive()
  .max(MAX_AMOUNT_MINOR, `must be at most ${MAX_AMOUNT_MINOR} (minor units)`);

/** An ISO 4217 alpha-3 code of a currency in circulation, upper case. */
export const CurrencySchema = z
  .string()
  .refine(isIso4217Currency, { error: 'must be an ISO 4217 alpha-3 currency code, e.g. "EUR"' });

/** Body of `POST /v1/orders/{orderId}/payments` (the gateway's public route and orders' internal one alike). */
export const OrderPaymentSchema = z.strictObject({
  amount: AmountMinorSchema,
  currency: CurrencySchema,
});
/** A payment of an order. */
export type OrderPayment = z.output<typeof OrderPaymentSchema>;

/** Body of payments' `POST /v1/payments`: the internal command orders sends to charge an order. */
export const PaymentCommandSchema = z.strictObject({
  tenantId: z.uuid().transform((id) => id.toLowerCase()),
  orderId: z.uuid().transform((id) => id.toLowerCase()),
  amount: AmountMinorSchema,
  currency: CurrencySchema,
});
/** A validated payment command. */
export type PaymentCommand = z.output<typeof PaymentCommandSchema>;

/** An order id in a path: a UUID, lower or upper case (RFC 9562), normalised to lower case. */
export const OrderIdSchema = z.uuid().transform((id) => id.toLowerCase());
