import { Module } from '@nestjs/common';
import { ApplyChargeMode, BalanceCheckMode } from '../config/orders-settings.js';
import { designInForce } from '../demonstrations/design-in-force.js';
import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';
import { ReadThenWriteBalance } from '../demonstrations/read-then-write-balance.service.js';
import { OrdersModule } from '../orders/orders.module.js';
import { BALANCE_CHECK, type BalanceCheck } from './balance-check.js';
import { CHARGE_APPLICATION, type ChargeApplication } from './charge-application.js';
import { OrderPaymentsService } from './order-payments.service.js';
import { PaymentAdmission } from './payment-admission.service.js';
import { PaymentReservations } from './payment-reservations.repository.js';
import { PaymentsClient } from './payments.client.js';
import { PaymentsController } from './payments.controller.js';
import { RecordedChargeApplication } from './recorded-charge-application.service.js';
import { ReservationBalanceCheck } from './reservation-balance-check.service.js';
import { ReservationSweeper } from './reservation-sweeper.service.js';

/**
 * `POST /v1/orders/{orderId}/payments` -> payments, and the Charge applied to the order. The balance check and the
 * apply are the designs, or, while the settings ask for the overpay or apply-once demonstration, a read's word.
 */
@Module({
  imports: [OrdersModule],
  controllers: [PaymentsController],
  providers: [
    PaymentsClient,
    OrderPaymentsService,
    PaymentAdmission,
    PaymentReservations,
    ReservationSweeper,
    ReservationBalanceCheck,
    ReadThenWriteBalance,
    designInForce<BalanceCheck>({
      provide: BALANCE_CHECK,
      design: ReservationBalanceCheck,
      demonstration: ReadThenWriteBalance,
      when: (settings) => settings.balanceCheck === BalanceCheckMode.ReadThenWrite,
      methods: ['check'],
    }),
    RecordedChargeApplication,
    ReadThenWriteApply,
    designInForce<ChargeApplication>({
      provide: CHARGE_APPLICATION,
      design: RecordedChargeApplication,
      demonstration: ReadThenWriteApply,
      when: (settings) => settings.applyCharge === ApplyChargeMode.ReadThenWrite,
      methods: ['apply'],
    }),
  ],
})
export class PaymentsModule {}
