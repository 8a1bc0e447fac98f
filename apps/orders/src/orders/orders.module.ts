import { Module } from '@nestjs/common';
import { RecordInRedis } from '../demonstrations/record-in-redis.service.js';
import { OrderFaults } from '../faults/order-faults.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';

/** `POST /v1/orders`, `GET /v1/orders/{orderId}`, `GET /v1/orders`; the repository and fault points are shared. */
@Module({
  controllers: [OrdersController],
  providers: [OrdersService, OrdersRepository, OrderFaults, RecordInRedis],
  exports: [OrdersRepository, OrderFaults],
})
export class OrdersModule {}
