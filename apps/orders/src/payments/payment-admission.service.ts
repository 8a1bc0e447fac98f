import { Inject, Injectable } from '@nestjs/common';
import { RuntimeSettings } from '@retry-safe/app-shell';
import type { Charge, OrderPayment } from '@retry-safe/contracts';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  isIdempotencyError,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { kyselyTransaction } from '@retry-safe/idempotency/postgres';
import {
  CurrencyMismatchError,
  OrderNotFoundError,
  PaymentExceedsBalanceError,
  PaymentInProgressError,
} from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { BalanceCheckMode, type OrdersSettings } from '../config/orders-settings.js';
import { ORDERS_COORDINATOR } from '../database/database.module.js';
import { amountOf } from '../database/orders-database.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import {
  PaymentReservations,
  ReservationOutcome,
  type Reservation,
} from './payment-reservations.repository.js';

/** What admitting a payment decided, past its refusals. */
export interface Admission {
  /**
   * The payment holds its key's reservation of its amount (this attempt reserved it, or an earlier attempt of the
   * same payment did): a definite refusal from payments gives it back; a Charge turns it into paid amount.
   */
  readonly reserved: boolean;
}

const NOT_RESERVED: Admission = { reserved: false };

/** Thrown out of the admission transaction to roll it back once the record admitted the payment. */
class Admitted extends Error {}

/**
 * Admitting a payment before it leaves for payments: the order exists (404), its currency (422), and its amount
 * reserved beside what is paid and reserved already, by one conditional statement (`PaymentReservations.reserve`),
 * so payments in parallel can never charge past the order's amount.
 */
@Injectable()
export class PaymentAdmission {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(ORDERS_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly orders: OrdersRepository,
    private readonly reservations: PaymentReservations,
    private readonly settings: RuntimeSettings<OrdersSettings>,
  ) {}

  /**
   * The checks, with the outcomes the API promises: the order exists (404); a key whose Charge is applied already
   * skips the business rules (its payment may be the one that paid the order), and so does a key reused with other
   * parameters (payments, which holds the record of the charge, answers its 422 `idempotency_key_reused`, relayed
   * byte for byte); any other payment must pass the rules and reserve its amount. A key holding its reservation
   * (an earlier attempt whose outcome was not known: a timeout, a 5xx, a crash) goes on without reserving again.
   * What does not fit is `payment_exceeds_balance` (422) when the paid amount alone leaves no room, else
   * `payment_in_progress` (409, `Retry-After`): a payment in flight may still fail and give its amount back.
   */
  async admit(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    record: CoordinateRequest<Charge>,
  ): Promise<Admission> {
    const order = await this.orders.findForPayment(tenantId, orderId);
    if (order === undefined) throw new OrderNotFoundError(orderId);
    if (payment.currency !== order.currency) {
      await this.refuse(new CurrencyMismatchError(order.id, order.currency, payment.currency), record);
      return NOT_RESERVED;
    }
    if (this.settings.current.balanceCheck === BalanceCheckMode.ReadThenWrite) {
      // DEMONSTRATION (overpay): the read decides, so payments in parallel all see the same balance and all charge.
      const owed = amountOf(order.amount) - amountOf(order.paid_amount);
      if (payment.amount > owed) {
        await this.refuse(new PaymentExceedsBalanceError(order.id, owed, payment.amount), record);
      }
      return NOT_RESERVED;
    }
    const reservation = await this.reservations.reserve(
      { tenantId, key: record.key },
      orderId,
      payment.amount,
      this.config.idempotency.ttlMs,
    );
    if (reservation === undefined) throw new OrderNotFoundError(orderId);
    if (reservation.outcome === ReservationOutcome.Reserved) return { reserved: true };
    if (reservation.outcome === ReservationOutcome.Held) {
      // The key's own reservation resolves with this attempt; one for other parameters is another payment's
      // business (payments refuses the reused key).
      return { reserved: reservation.orderId === orderId && reservation.amount === payment.amount };
    }
    await this.refuse(noRoom(orderId, reservation, payment.amount), record);
    return NOT_RESERVED;
  }

  /**
   * Throws `refusal` unless the key's record admits the payment anyway: a completed record (its Charge is applied;
   * payments will replay it) or a key reused with other parameters. Asked only when the rules refuse (one read for
   * every payable attempt instead of a transaction), in a transaction that is always rolled back: the claim it
   * takes to ask is never committed.
   */
  private async refuse(refusal: Error, record: CoordinateRequest<Charge>): Promise<void> {
    // BENCHMARK SWITCH (`IDEMPOTENCY_ENABLED=false`): the business rules alone, no record asked.
    if (!this.config.idempotency.enabled) throw refusal;
    try {
      await this.orders.db.transaction().execute(async (trx) => {
        await this.coordinator.coordinateInTransaction(kyselyTransaction(trx), record, () => {
          throw refusal;
        });
        // Replayed: this key's Charge is applied; payments will replay it.
        throw new Admitted();
      });
    } catch (error) {
      if (error instanceof Admitted) return;
      if (isIdempotencyError(error) && error.code === IdempotencyErrorCode.KeyReuse) return;
      throw error;
    }
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
