import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module.js';
import { PaymentsController } from './payments.controller.js';

/** `POST /v1/orders/{orderId}/payments`. */
@Module({ imports: [OrdersModule], controllers: [PaymentsController] })
export class PaymentsModule {}
