import { Injectable } from '@nestjs/common';
import type { OrderPayment } from '@retry-safe/contracts';
import { PaymentExceedsBalanceError } from '../common/orders-errors.js';
import { amountOf } from '../database/orders-database.js';
import type { OrderRow } from '../orders/orders.repository.js';
import type { BalanceCheck, BalanceDecision } from '../payments/balance-check.js';

/**
 * DEMONSTRATION of the wrong design of the overpay scenario (`PUT /__config {"balanceCheck": "read-then-write"}`):
 * the balance the admission read decides, and nothing is reserved, so payments in parallel (each with its own key)
 * all see the same balance and all charge.
 */
@Injectable()
export class ReadThenWriteBalance implements BalanceCheck {
  check(order: OrderRow, payment: OrderPayment): Promise<BalanceDecision> {
    const owed = amountOf(order.amount) - amountOf(order.paid_amount);
    if (payment.amount > owed) {
      return Promise.resolve({ refusal: new PaymentExceedsBalanceError(order.id, owed, payment.amount) });
    }
    return Promise.resolve({ reserved: false });
  }
}
