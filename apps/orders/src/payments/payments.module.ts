import { Module } from '@nestjs/common';
import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';
import { OrdersModule } from '../orders/orders.module.js';
import { OrderPaymentsService } from './order-payments.service.js';
import { PaymentsClient } from './payments.client.js';
import { PaymentsController } from './payments.controller.js';

/** `POST /v1/orders/{orderId}/payments` -> payments, and the Charge applied to the order. */
@Module({
  imports: [OrdersModule],
  controllers: [PaymentsController],
  providers: [PaymentsClient, OrderPaymentsService, ReadThenWriteApply],
})
export class PaymentsModule {}
