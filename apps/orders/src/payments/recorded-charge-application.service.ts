import { Injectable } from '@nestjs/common';
import { ChargeSchema, type Charge } from '@retry-safe/contracts';
import { CoordinateOutcome, schemaCodec } from '@retry-safe/idempotency';
import { IdempotencyContextArg, IdempotentMethod, outcomeOf } from '@retry-safe/idempotency/nest';
import type { StatementContext } from '@retry-safe/idempotency/nest';
import { recordedStatement, type RecordOf } from '../config/orders-idempotency-settings.js';
import type { ReservationOwner } from '../database/orders-database.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import type { ChargeApplication } from './charge-application.js';
import { PaymentReservations } from './payment-reservations.repository.js';

/**
 * The design: the Charge applied in ONE statement with the key's completed record (the library's one-statement
 * form), so a crash leaves both or neither. Concurrent retries of the key meet on the record's unique index and on
 * the charge's primary key: the second waits for the first, writes nothing, then replays. The apply turns the
 * key's reservation into paid amount; a replay gives back what this attempt reserved.
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
   * The apply, once per `record`: declared, not run (the library runs it with the completed record in one
   * statement on the orders pool, or after the claim in a transaction for a key with a record
   * ({@link recordedStatement}), asking this method again). The fault point is before the write either way.
   */
  @IdempotentMethod<[Charge, RecordOf<Charge>, ReservationOwner], Charge>(
    recordedStatement(1, schemaCodec(ChargeSchema)),
  )
  async applyOnce(
    charge: Charge,
    record: RecordOf<Charge>,
    owner: ReservationOwner,
    @IdempotencyContextArg() context?: StatementContext,
  ): Promise<Charge> {
    await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, { 'idempotency-key': record.key });
    context!.write(this.orders.applyChargeStatement(charge, owner));
    return charge;
  }
}
