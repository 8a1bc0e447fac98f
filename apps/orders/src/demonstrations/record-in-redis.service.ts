import { Inject, Injectable } from '@nestjs/common';
import {
  makeIdempotentWithOutcome,
  schemaCodec,
  type CoordinatedResult,
  type IdempotencyCoordinator,
} from '@retry-safe/idempotency';
import { OrdersIdempotencySettings, type RecordOf } from '../config/orders-idempotency-settings.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrderSchema, type Order } from '../orders/order.js';
import type { NewOrder, OrderCreation } from '../orders/order-creation.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { REDIS_RECORDS_COORDINATOR } from './record-in-redis.module.js';

/**
 * DEMONSTRATION of the wrong design of the db-effect scenario (`PUT /__config {"createRecord": "redis"}`): the
 * processing record of a new order kept in a separate store (Redis, the queue's), around the order's own
 * transaction. The coordinator is the real one (claim, lease renewed while the action runs, complete), reached
 * through the library's function form; what it cannot do is commit the record with the order. Killed between the
 * order's COMMIT and the record's completion, the order stays and the record is a reservation whose lease runs
 * out: the retry takes the key over and creates a second order. A duplicate in flight waits for the owner (its
 * lease), then replays or takes over.
 */
@Injectable()
export class RecordInRedis implements OrderCreation {
  /** The order's creation, once per record's key, with the record in Redis. */
  readonly create: (order: NewOrder, record: RecordOf<Order>) => Promise<CoordinatedResult<Order>>;

  constructor(
    @Inject(REDIS_RECORDS_COORDINATOR) coordinator: IdempotencyCoordinator,
    settings: OrdersIdempotencySettings,
    orders: OrdersRepository,
    faults: OrderFaults,
  ) {
    // The same operation, key and fingerprint as the right design's record (recordedWrite), in another store.
    this.create = makeIdempotentWithOutcome(
      coordinator,
      async (_context, order: NewOrder, record: RecordOf<Order>) => {
        // The order commits on its own (one INSERT); the record completes in Redis after it.
        const created = await orders.insert(orders.pool, order);
        await faults.trip(OrderFaultPoint.AfterCreateCommit, { 'idempotency-key': record.key });
        return created;
      },
      {
        operation: (_order, record) => record.operation,
        key: (_order, record) => record.key,
        fingerprint: (_order, record) => record.fingerprint,
        codec: schemaCodec(OrderSchema),
        settings: () => settings.idempotencySettings(),
      },
    );
  }
}
