import { z } from 'zod';
import { OrderPaymentSchema } from './payment-command.js';

/** The states of an order: it waits for payments until nothing is owed. */
export const OrderStatus = {
  AwaitingPayment: 'awaiting_payment',
  Paid: 'paid',
} as const;
/** One of {@link OrderStatus}'s values. */
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

/** Body of `POST /v1/orders`: what the order costs, by the payment rules (1..99 999 999 minor units, ISO 4217). */
export const OrderCreateSchema = OrderPaymentSchema;
/** A new order's amount and currency. */
export type OrderCreate = z.output<typeof OrderCreateSchema>;

/** Page sizes of `GET /v1/orders`. */
export const ORDER_LIST_LIMITS = { default: 20, max: 100 } as const;

/** Query of `GET /v1/orders`: `limit` (1..100, default 20) and the `cursor` of the previous page. */
export const OrderListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(ORDER_LIST_LIMITS.max).default(ORDER_LIST_LIMITS.default),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be the nextCursor of a previous page')
    .optional(),
});
/** A validated list query. */
export type OrderListQuery = z.output<typeof OrderListQuerySchema>;
