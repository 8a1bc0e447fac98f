import type { CoordinatedResult } from '@retry-safe/idempotency';
import type { RecordOf } from '../config/orders-idempotency-settings.js';
import type { Order } from './order.js';

/** A new order's row, as the use case mints it (its id, and `createdAt` at the column's ms precision). */
export interface NewOrder {
  readonly id: string;
  readonly tenantId: string;
  readonly amount: number;
  readonly currency: string;
  readonly createdAt: Date;
}

/**
 * How an order is created once per key: where its processing record is kept. The design keeps it in the order's
 * transaction; the db-effect scenario's demonstration keeps it in Redis. Both trip `orders/after-create-commit`
 * once the order is committed and before the answer goes out.
 */
export interface OrderCreation {
  /** Creates `order` under `record` (or answers the order an earlier call with the key created). */
  create(order: NewOrder, record: RecordOf<Order>): Promise<CoordinatedResult<Order>>;
}

/** DI token of the {@link OrderCreation} in force (bound by the orders module from the settings). */
export const ORDER_CREATION = Symbol('ORDER_CREATION');
