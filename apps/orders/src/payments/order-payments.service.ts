import { Inject, Injectable, Logger } from '@nestjs/common';
import { RuntimeSettings, type ChainContext } from '@retry-safe/app-shell';
import { ChargeSchema, type Charge, type OrderPayment } from '@retry-safe/contracts';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { ServiceResponse } from '@retry-safe/http-client';
import {
  IdempotencyCoordinator,
  fingerprintOf,
  schemaCodec,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { ApplyChargeMode, type OrdersSettings } from '../config/orders-settings.js';
import { ORDERS_COORDINATOR } from '../database/database.module.js';
import { withPgTransaction } from '../database/pg-transaction.js';
import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import type { ReservationOwner } from '../database/orders-database.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { PaymentAdmission } from './payment-admission.service.js';
import { PaymentReservations } from './payment-reservations.repository.js';
import { PaymentsClient } from './payments.client.js';

const chargeCodec = schemaCodec(ChargeSchema);

/** The idempotency scope of applying a tenant's charges to its orders. */
export function applyChargeOperation(tenantId: string): string {
  return `order.payment.${tenantId.replaceAll('-', '')}`;
}

/**
 * Payments' answers that say for certain no charge was made for the key (its reservation is given back): a 4xx,
 * except 409, a duplicate of the key still in flight there, which may yet charge. A 5xx, a timeout or no answer
 * is not known, and keeps the reservation for the key's retry to resolve.
 */
export function isDefiniteRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 409;
}

/**
 * Paying an order: admit (reserving the amount), charge through payments, apply the Charge once.
 *
 * Every attempt is passed on to payments (it holds the record of the external effect and replays it); orders
 * keeps its own record for the key, in its database, in the transaction that applies the Charge to the order, and
 * its reservation of the amount until the Charge is applied or refused.
 */
@Injectable()
export class OrderPaymentsService {
  private readonly logger = new Logger(OrderPaymentsService.name);

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(ORDERS_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly orders: OrdersRepository,
    private readonly admission: PaymentAdmission,
    private readonly reservations: PaymentReservations,
    private readonly payments: PaymentsClient,
    private readonly faults: OrderFaults,
    private readonly settings: RuntimeSettings<OrdersSettings>,
    private readonly readThenWrite: ReadThenWriteApply,
  ) {}

  /** Pays `orderId`; resolves to payments' answer, to relay. `signal`: the caller left, stop. */
  async pay(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    idempotencyKey: string,
    chain: ChainContext,
    signal?: AbortSignal,
  ): Promise<ServiceResponse<unknown>> {
    const record = this.recordOf(tenantId, orderId, payment, idempotencyKey);
    const owner: ReservationOwner = { tenantId, key: idempotencyKey };
    const { reserved } = await this.admission.admit(tenantId, orderId, payment, record);
    // Thrown (a timeout, payments unreachable, the caller gone): not known, the reservation stays for the retry.
    const upstream = await this.payments.charge(
      { tenantId, orderId, ...payment },
      idempotencyKey,
      chain,
      signal,
    );
    if (upstream.status !== 201) {
      if (reserved && isDefiniteRefusal(upstream.status)) await this.release(owner, orderId);
      return upstream;
    }
    const charge = ChargeSchema.parse(upstream.data);
    await this.faults.trip(OrderFaultPoint.AfterCharge, { 'idempotency-key': idempotencyKey });
    if (this.settings.current.applyCharge === ApplyChargeMode.ReadThenWrite) {
      // DEMONSTRATION (apply-once): a read decides, so racing retries add the amount twice.
      await this.readThenWrite.apply(charge, idempotencyKey);
      await this.reservations.release(owner, orderId);
    } else
      await this.apply(charge, record, owner, upstream.headers[ChainHeader.IdempotentReplayed] === 'true');
    return upstream;
  }

  /** Gives a refused payment's reservation back; failing that, the key's retry or the sweep will. */
  private async release(owner: ReservationOwner, orderId: string): Promise<void> {
    try {
      await this.reservations.release(owner, orderId);
    } catch (error) {
      this.logger.warn({ msg: 'reservation not released', orderId, error: String(error) });
    }
  }

  /**
   * Applies the Charge once with the record for the key. A fresh Charge: one autocommitted statement writes the
   * completed record and applies it ({@link OrdersRepository.applyChargeWithRecord}; the Charge is the answer,
   * known before the write). A Charge payments `replayed` (its key was here before: the record is most likely
   * there, or orders died before applying it), a key with a record (a released one), a concurrent retry that
   * committed first, or a failed statement: one transaction with the coordinator's claim, which replays or
   * applies. Either way the record's unique index serialises concurrent retries of the key (the second waits, then
   * replays), and the charge's primary key keeps any other path from applying it twice.
   */
  private async apply(
    charge: Charge,
    record: CoordinateRequest<Charge>,
    owner: ReservationOwner,
    replayed: boolean,
  ): Promise<void> {
    const faultContext = { 'idempotency-key': record.key };
    if (!this.config.idempotency.enabled) {
      // BENCHMARK SWITCH: the charge's primary key alone keeps it from being applied twice (one statement).
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
      await this.orders.applyCharge(this.orders.pool, charge, owner);
      return;
    }
    if (!replayed) {
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
      if (await this.applyInOneStatement(charge, record, owner)) return;
    }
    await withPgTransaction(this.orders.pool, async (client) => {
      await this.coordinator.coordinateInTransaction(client, record, async () => {
        await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
        await this.orders.applyCharge(client, charge, owner);
        return charge;
      });
      // A replay (the Charge applied before) gives back what this attempt reserved; after an apply, nothing is left.
      await this.reservations.release(owner, charge.orderId, client);
    });
  }

  /**
   * The fresh key's apply: false when nothing was written (the key has a record) or the statement failed; the
   * claim decides next, which is safe after a statement that committed but whose answer was lost (it replays).
   */
  private async applyInOneStatement(
    charge: Charge,
    record: CoordinateRequest<Charge>,
    owner: ReservationOwner,
  ): Promise<boolean> {
    try {
      const token = await this.orders.applyChargeWithRecord(
        charge,
        {
          operation: record.operation,
          key: record.key,
          owner: `orders.${charge.id}`,
          fingerprint: record.fingerprint ?? '',
          payload: chargeCodec.encode(charge),
          ttlMs: record.ttlMs,
        },
        owner.tenantId,
      );
      return token !== undefined;
    } catch {
      return false;
    }
  }

  private recordOf(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    idempotencyKey: string,
  ): CoordinateRequest<Charge> {
    return {
      operation: applyChargeOperation(tenantId),
      key: idempotencyKey,
      ttlMs: this.config.idempotency.ttlMs,
      codec: chargeCodec,
      fingerprint: fingerprintOf({ orderId, amount: payment.amount, currency: payment.currency }),
    };
  }
}
