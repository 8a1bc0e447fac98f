import { Injectable } from '@nestjs/common';
import { ChargeSchema, type Charge } from '@retry-safe/contracts';
import { CoordinateOutcome, schemaCodec, type IdempotencyContext } from '@retry-safe/idempotency';
import { IdempotencyContextArg, IdempotentMethod, outcomeOf } from '@retry-safe/idempotency/nest';
import type pg from 'pg';
import { recordedWrite, type RecordOf } from '../config/orders-idempotency-settings.js';
import { ORDERS_TRANSACTIONS } from '../database/database.module.js';
import type { ReservationOwner } from '../database/orders-database.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import type { ChargeApplication } from './charge-application.js';
import { PaymentReservations } from './payment-reservations.repository.js';

/**
 * The design: the Charge applied in one transaction with the key's record (the library's optimistic form: the
 * apply statement, then the completed record), so a crash leaves both or neither. Concurrent retries of the key
 * meet on the record's unique index and on the charge's primary key: the second waits for the first, then
 * replays. The apply statement turns the key's reservation into paid amount; a replay gives back what this
 * attempt reserved.
 */
@Injectable()
export class RecordedChargeApplication implements ChargeApplication {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly reservations: PaymentReservations,
    private readonly faults: OrderFaults,
  ) {}

  async apply(charge: Charge, record: RecordOf<Charge>, owner: ReservationOwner): Promise<void> {
    // `this.applyOnce` is the library's wrapper (it replaced the method when the app started).
    const { outcome } = await outcomeOf(this.applyOnce(charge, record, owner));
    if (outcome === CoordinateOutcome.Replayed) await this.reservations.release(owner, charge.orderId);
  }

  /**
   * The apply statement, once per `record`: in a transaction of {@link ORDERS_TRANSACTIONS} with the completed
   * record. It may run again after a rollback (a key with a record), so it writes only through the context's
   * transaction.
   */
  @IdempotentMethod<[Charge, RecordOf<Charge>, ReservationOwner], Charge>({
    ...recordedWrite(1, schemaCodec(ChargeSchema)),
    runInTransaction: ORDERS_TRANSACTIONS,
  })
  async applyOnce(
    charge: Charge,
    record: RecordOf<Charge>,
    owner: ReservationOwner,
    @IdempotencyContextArg() context?: IdempotencyContext & { readonly transaction?: pg.PoolClient },
  ): Promise<Charge> {
    await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, { 'idempotency-key': record.key });
    await this.orders.applyCharge(context!.transaction!, charge, owner);
    return charge;
  }
}
