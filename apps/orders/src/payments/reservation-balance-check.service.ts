import { Injectable } from '@nestjs/common';
import type { OrderPayment } from '@retry-safe/contracts';
import {
  OrderNotFoundError,
  PaymentExceedsBalanceError,
  PaymentInProgressError,
} from '../common/orders-errors.js';
import { OrdersIdempotencySettings } from '../config/orders-idempotency-settings.js';
import type { ReservationOwner } from '../database/orders-database.js';
import type { OrderRow } from '../orders/orders.repository.js';
import type { BalanceCheck, BalanceDecision } from './balance-check.js';
import {
  PaymentReservations,
  ReservationOutcome,
  type Reservation,
} from './payment-reservations.repository.js';

/**
 * The design: the payment's amount is reserved beside what is paid and reserved already, by one conditional
 * statement (`PaymentReservations.reserve`), so payments in parallel can never charge past the order's amount.
 * The reservation lasts as long as its key's record (the settings' TTL). What does not fit is
 * `payment_exceeds_balance` (422) when the paid amount alone leaves no room, else `payment_in_progress` (409,
 * `Retry-After`): a payment in flight may still fail and give its amount back.
 */
@Injectable()
export class ReservationBalanceCheck implements BalanceCheck {
  constructor(
    private readonly reservations: PaymentReservations,
    private readonly settings: OrdersIdempotencySettings,
  ) {}

  async check(order: OrderRow, payment: OrderPayment, owner: ReservationOwner): Promise<BalanceDecision> {
    const reservation = await this.reservations.reserve(
      owner,
      order.id,
      payment.amount,
      this.settings.ttlMs(),
    );
    if (reservation === undefined) throw new OrderNotFoundError(order.id);
    if (reservation.outcome === ReservationOutcome.Reserved) return { reserved: true };
    if (reservation.outcome === ReservationOutcome.Held) {
      // The key's own reservation resolves with this attempt; one for other parameters is another payment's
      // business (payments refuses the reused key).
      return { reserved: reservation.orderId === order.id && reservation.amount === payment.amount };
    }
    return { refusal: noRoom(order.id, reservation, payment.amount) };
  }
}

/** The refusal of a payment that did not fit: over what is owed (422), or over what is not reserved (409). */
function noRoom(
  orderId: string,
  order: Extract<Reservation, { outcome: typeof ReservationOutcome.NoRoom }>,
  amount: number,
): Error {
  const owed = order.amount - order.paidAmount;
  if (amount > owed) return new PaymentExceedsBalanceError(orderId, owed, amount);
  return new PaymentInProgressError(orderId, owed, order.reservedAmount, amount);
}
