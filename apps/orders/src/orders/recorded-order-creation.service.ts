import { Injectable } from '@nestjs/common';
import { schemaCodec, type CoordinatedResult, type IdempotencyContext } from '@retry-safe/idempotency';
import { IdempotencyContextArg, IdempotentMethod, outcomeOf } from '@retry-safe/idempotency/nest';
import type pg from 'pg';
import { recordedWrite, type RecordOf } from '../config/orders-idempotency-settings.js';
import { ORDERS_TRANSACTIONS } from '../database/database.module.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrderSchema, type Order } from './order.js';
import type { NewOrder, OrderCreation } from './order-creation.js';
import { OrdersRepository } from './orders.repository.js';

/**
 * The design: the order's row and its processing record commit in ONE transaction (the library's optimistic
 * form: the INSERT, then the completed record, one statement each). A crash leaves both or neither, so the retry
 * finds the record and replays the order instead of creating a second one. A key with a record goes through the
 * claim in a second transaction: the same order replayed, `idempotency_key_reused` before anything is written, or
 * the order created again for a released key.
 */
@Injectable()
export class RecordedOrderCreation implements OrderCreation {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly faults: OrderFaults,
  ) {}

  async create(order: NewOrder, record: RecordOf<Order>): Promise<CoordinatedResult<Order>> {
    // `this.insertOnce` is the library's wrapper (it replaced the method when the app started).
    const result = await outcomeOf(this.insertOnce(order, record));
    await this.faults.trip(OrderFaultPoint.AfterCreateCommit, { 'idempotency-key': record.key });
    return result;
  }

  /**
   * The order's INSERT, once per `record`: in a transaction of {@link ORDERS_TRANSACTIONS} with the completed
   * record. It may run again after a rollback (a key with a record), so it writes only through the context's
   * transaction.
   */
  @IdempotentMethod<[NewOrder, RecordOf<Order>], Order>({
    ...recordedWrite(1, schemaCodec(OrderSchema)),
    runInTransaction: ORDERS_TRANSACTIONS,
  })
  insertOnce(
    order: NewOrder,
    _record: RecordOf<Order>,
    @IdempotencyContextArg() context?: IdempotencyContext & { readonly transaction?: pg.PoolClient },
  ): Promise<Order> {
    return this.orders.insert(context!.transaction!, order);
  }
}
