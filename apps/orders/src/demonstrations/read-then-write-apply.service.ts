import { Injectable } from '@nestjs/common';
import { OrderStatus, type Charge } from '@retry-safe/contracts';
import type { RecordOf } from '../config/orders-idempotency-settings.js';
import type { ReservationOwner } from '../database/orders-database.js';
import { withPgTransaction, type NamedStatement } from '../database/pg-transaction.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { INSERT_PAYMENT_ROW, OrdersRepository, paymentRowValues } from '../orders/orders.repository.js';
import type { ChargeApplication } from '../payments/charge-application.js';
import { PaymentReservations } from '../payments/payment-reservations.repository.js';

// The demonstration's steps, one statement each (the design's apply is OrdersRepository.applyCharge alone).
const CHARGE_RECORDED: NamedStatement = {
  name: 'orders:charge-recorded',
  text: 'SELECT 1 FROM order_payments WHERE charge_id = $1',
};
const INSERT_PAYMENT: NamedStatement = { name: 'orders:insert-payment', text: INSERT_PAYMENT_ROW };
const ADD_TO_PAID: NamedStatement = {
  name: 'orders:add-to-paid',
  text: `UPDATE orders SET paid_amount = paid_amount + $2,
      status = CASE WHEN paid_amount + $2 >= amount THEN $3 ELSE $4 END
    WHERE id = $1`,
};

/**
 * DEMONSTRATION of the wrong design of the apply-once scenario (`PUT /__config {"applyCharge":
 * "read-then-write"}`): a `SELECT` asks whether the Charge is recorded, and when it says no, the amount is added to
 * the order and the Charge recorded. No processing record serialises the retries of the key, and the read, not
 * the write, decides: two retries that both read before either committed both add the amount. (The charge row
 * itself is kept once by the table's primary key, which the schema keeps for every design; the amount was added
 * on the read's word, twice.) One retry at a time applies it once, like the design; and as no record is kept
 * for the key, a retry after the order is paid meets the balance rule (`payment_exceeds_balance`) instead of the
 * replay.
 */
@Injectable()
export class ReadThenWriteApply implements ChargeApplication {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly reservations: PaymentReservations,
    private readonly faults: OrderFaults,
  ) {}

  /** Applies `charge` unless a read finds it applied, then gives the key's reservation back. */
  async apply(charge: Charge, record: RecordOf<Charge>, owner: ReservationOwner): Promise<void> {
    await withPgTransaction(this.orders.pool, async (client) => {
      const recorded = await client.query({ ...CHARGE_RECORDED, values: [charge.id] });
      if ((recorded.rowCount ?? 0) > 0) return;
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, { 'idempotency-key': record.key });
      await client.query({
        ...ADD_TO_PAID,
        values: [charge.orderId, charge.amount, OrderStatus.Paid, OrderStatus.AwaitingPayment],
      });
      await client.query({ ...INSERT_PAYMENT, values: paymentRowValues(charge) });
    });
    await this.reservations.release(owner, charge.orderId);
  }
}
