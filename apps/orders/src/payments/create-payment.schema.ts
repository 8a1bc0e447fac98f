import { z } from 'zod';

/**
 * Body of `POST /v1/orders/{orderId}/payments`, as the gateway sends it. Orders checks the shape only; which
 * currencies and amounts can be charged is for payments to decide.
 */
export const CreatePaymentSchema = z.strictObject({
  amount: z.int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 alpha-3 code'),
});
export type CreatePayment = z.infer<typeof CreatePaymentSchema>;
