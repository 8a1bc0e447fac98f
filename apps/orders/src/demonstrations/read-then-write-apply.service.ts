import { Injectable } from '@nestjs/common';
import type { Charge } from '@retry-safe/contracts';
import { withPgTransaction } from '../database/pg-transaction.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository } from '../orders/orders.repository.js';

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
export class ReadThenWriteApply {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly faults: OrderFaults,
  ) {}

  /** Applies `charge` unless a read finds it applied; true if this call added its amount. */
  apply(charge: Charge, idempotencyKey: string): Promise<boolean> {
    return withPgTransaction(this.orders.pool, async (client) => {
      if (await this.orders.isChargeRecorded(client, charge.id)) return false;
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, { 'idempotency-key': idempotencyKey });
      await this.orders.addToPaid(client, charge.orderId, charge.amount);
      await this.orders.insertPayment(client, charge);
      return true;
    });
  }
}
