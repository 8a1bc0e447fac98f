import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ChainContext } from '@retry-safe/app-shell/http';
import { ChargeSchema, type Charge, type OrderPayment } from '@retry-safe/contracts';
import type { ServiceResponse } from '@retry-safe/http-client';
import { fingerprintOf, schemaCodec } from '@retry-safe/idempotency';
import type { RecordOf } from '../config/orders-idempotency-settings.js';
import type { ReservationOwner } from '../database/orders-database.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { CHARGE_APPLICATION, type ChargeApplication } from './charge-application.js';
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
 * Paying an order: admit it (its balance reserved), charge through payments, apply the Charge once.
 *
 * Every attempt is passed on to payments (it holds the record of the external effect and replays it); orders
 * keeps its own record for the key, in its database, in the transaction that applies the Charge to the order, and
 * its reservation of the amount until the Charge is applied or refused.
 */
@Injectable()
export class OrderPaymentsService {
  private readonly logger = new Logger(OrderPaymentsService.name);

  constructor(
    private readonly admission: PaymentAdmission,
    private readonly payments: PaymentsClient,
    @Inject(CHARGE_APPLICATION) private readonly application: ChargeApplication,
    private readonly reservations: PaymentReservations,
    private readonly faults: OrderFaults,
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
    const record = recordOf(tenantId, orderId, payment, idempotencyKey);
    const owner: ReservationOwner = { tenantId, key: idempotencyKey };
    // Claim: the checks, and the amount reserved on the order.
    const { reserved } = await this.admission.admit(tenantId, orderId, payment, record);
    // Act. Thrown (a timeout, payments unreachable, the caller gone): not known, the reservation stays.
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
    // Save: the Charge applied to the order once, the reservation resolved.
    await this.application.apply(charge, record, owner);
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
}

/** The key's record: per tenant, a fingerprint of the order, amount and currency, the Charge stored. */
function recordOf(
  tenantId: string,
  orderId: string,
  payment: OrderPayment,
  idempotencyKey: string,
): RecordOf<Charge> {
  return {
    operation: applyChargeOperation(tenantId),
    key: idempotencyKey,
    codec: chargeCodec,
    fingerprint: fingerprintOf({ orderId, amount: payment.amount, currency: payment.currency }),
  };
}
