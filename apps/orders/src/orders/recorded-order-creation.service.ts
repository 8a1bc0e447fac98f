import { Injectable } from '@nestjs/common';
import { schemaCodec, type CoordinatedResult } from '@retry-safe/idempotency';
import { IdempotencyContextArg, IdempotentMethod, outcomeOf } from '@retry-safe/idempotency/nest';
import type { StatementContext } from '@retry-safe/idempotency/nest';
import { recordedStatement, type RecordOf } from '../config/orders-idempotency-settings.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrderSchema, type Order } from './order.js';
import type { NewOrder, OrderCreation } from './order-creation.js';
import { OrdersRepository } from './orders.repository.js';

/**
 * The design: the order's row and its processing record commit in ONE statement (the library's one-statement
 * form). A crash leaves both or neither, so the retry finds the record and replays the order instead of creating
 * a second one. A key with a record writes nothing there and goes through the claim in a transaction: the same
 * order replayed, `idempotency_key_reused` before anything is written, or the order created again for a released
 * key.
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
   * The order's INSERT, once per `record`: declared, not run (the library runs it with the completed record in one
   * statement on the orders pool, or after the claim in a transaction for a key with a record
   * ({@link recordedStatement}), asking this method again).
   */
  @IdempotentMethod<[NewOrder, RecordOf<Order>], Order>(recordedStatement(1, schemaCodec(OrderSchema)))
  async insertOnce(
    order: NewOrder,
    _record: RecordOf<Order>,
    @IdempotencyContextArg() context?: StatementContext,
  ): Promise<Order> {
    const { value, statement } = this.orders.createStatement(order);
    context!.write(statement);
    return value;
  }
}
