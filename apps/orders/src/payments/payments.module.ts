import { Module } from '@nestjs/common';
import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';
import { OrdersModule } from '../orders/orders.module.js';
import { OrderPaymentsService } from './order-payments.service.js';
import { PaymentAdmission } from './payment-admission.service.js';
import { PaymentReservations } from './payment-reservations.repository.js';
import { ReservationSweeper } from './reservation-sweeper.service.js';
import { PaymentsClient } from './payments.client.js';
import { PaymentsController } from './payments.controller.js';

/** `POST /v1/orders/{orderId}/payments` -> payments, and the Charge applied to the order. */
@Module({
  imports: [OrdersModule],
  controllers: [PaymentsController],
  providers: [
    PaymentsClient,
    OrderPaymentsService,
    PaymentAdmission,
    PaymentReservations,
    ReservationSweeper,
    ReadThenWriteApply,
  ],
})
export class PaymentsModule {}
