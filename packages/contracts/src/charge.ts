import { z } from 'zod';

/**
 * The result of a payment as payments answers it (`201` of `POST /v1/payments`), stored by its coordinator and
 * replayed as it is; orders reads it to apply the charge to the order. Its key order is the order of this shape:
 * both a first answer and a replay go through `ChargeSchema.parse`, so they serialize to the same bytes.
 */
export const ChargeSchema = z.strictObject({
  /** Derived from the operation, the key and the provider charge (see `chargeIdOf`): one id per Charge. */
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
