import { OrderStatus } from '@retry-safe/contracts';
import { z } from 'zod';

/**
 * An order as the API answers it (`201` of `POST /v1/orders`, an item of `GET /v1/orders`). Both a first answer
 * and a replay go through `OrderSchema.parse`, so their keys come in this order and their bytes are the same.
 */
export const OrderSchema = z.strictObject({
  id: z.uuid(),
  status: z.enum(OrderStatus),
  amount: z.int().positive(),
  currency: z.string().length(3),
  paidAmount: z.int().nonnegative(),
  createdAt: z.iso.datetime(),
});
/** An order. */
export type Order = z.infer<typeof OrderSchema>;

/** A charge applied to an order, as `GET /v1/orders/{orderId}` lists it. */
export interface OrderPayment {
  readonly chargeId: string;
  readonly amount: number;
  readonly currency: string;
  readonly status: string;
  readonly createdAt: string;
}

/** An invoice requested for an order, as `GET /v1/orders/{orderId}` lists it. */
export interface OrderInvoice {
  readonly version: number;
  readonly email: string;
  readonly status: string;
}

/** `GET /v1/orders/{orderId}`: the order, its applied charges (oldest first) and its invoice requests. */
export type OrderDetails = Order & {
  readonly payments: readonly OrderPayment[];
  readonly invoices: readonly OrderInvoice[];
};

/** `GET /v1/orders`: a page of the tenant's orders, newest first, and the cursor of the next page (null at the end). */
export interface OrderPage {
  readonly orders: readonly Order[];
  readonly nextCursor: string | null;
}
