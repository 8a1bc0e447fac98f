import { Module } from '@nestjs/common';
import { CreateRecordMode } from '../config/orders-settings.js';
import { OrdersIdempotencySettings } from '../config/orders-idempotency-settings.js';
import { designInForce } from '../demonstrations/design-in-force.js';
import { RecordInRedisModule } from '../demonstrations/record-in-redis.module.js';
import { RecordInRedis } from '../demonstrations/record-in-redis.service.js';
import { OrderFaults } from '../faults/order-faults.js';
import { ORDER_CREATION, type OrderCreation } from './order-creation.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';
import { RecordedOrderCreation } from './recorded-order-creation.service.js';

/**
 * `POST /v1/orders`, `GET /v1/orders/{orderId}`, `GET /v1/orders`; the repository, the fault points and the
 * records (with their one settings provider) are shared. An order's record is kept in its transaction, or, while
 * the settings ask for the db-effect demonstration, in Redis.
 */
@Module({
  imports: [RecordInRedisModule],
  controllers: [OrdersController],
  providers: [
    OrdersService,
    OrdersRepository,
    OrderFaults,
    OrdersIdempotencySettings,
    RecordedOrderCreation,
    RecordInRedis,
    designInForce<OrderCreation>({
      provide: ORDER_CREATION,
      design: RecordedOrderCreation,
      demonstration: RecordInRedis,
      when: (settings) => settings.createRecord === CreateRecordMode.Redis,
      methods: ['create'],
    }),
  ],
  exports: [OrdersRepository, OrderFaults, OrdersIdempotencySettings],
})
export class OrdersModule {}
