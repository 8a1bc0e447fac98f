import { Inject, Injectable } from '@nestjs/common';
import { RuntimeSettings, type ChainContext } from '@retry-safe/app-shell';
import { ChargeSchema, type Charge, type OrderPayment } from '@retry-safe/contracts';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { ServiceResponse } from '@retry-safe/http-client';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  fingerprintOf,
  isIdempotencyError,
  schemaCodec,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { kyselyTransaction } from '@retry-safe/idempotency/postgres';
import {
  CurrencyMismatchError,
  OrderNotFoundError,
  PaymentExceedsBalanceError,
} from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { ApplyChargeMode, type OrdersSettings } from '../config/orders-settings.js';
import { ORDERS_COORDINATOR } from '../database/database.module.js';
import { withPgTransaction } from '../database/pg-transaction.js';
import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrdersRepository, type OrderRow } from '../orders/orders.repository.js';
import { PaymentsClient } from './payments.client.js';

const chargeCodec = schemaCodec(ChargeSchema);

/** The idempotency scope of applying a tenant's charges to its orders. */
export function applyChargeOperation(tenantId: string): string {
  return `order.payment.${tenantId.replaceAll('-', '')}`;
}

/** Thrown out of the admission transaction to roll it back once the record admitted the payment. */
class Admitted extends Error {}

/**
 * Paying an order: admit, charge through payments, apply the Charge once.
 *
 * Every attempt is passed on to payments (it holds the record of the external effect and replays it); orders
 * keeps its own record for the key, in its database, in the transaction that applies the Charge to the order.
 */
@Injectable()
export class OrderPaymentsService {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(ORDERS_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly orders: OrdersRepository,
    private readonly payments: PaymentsClient,
    private readonly faults: OrderFaults,
    private readonly settings: RuntimeSettings<OrdersSettings>,
    private readonly readThenWrite: ReadThenWriteApply,
  ) {}

  /** Pays `orderId`; resolves to payments' answer, to relay as it came. `signal`: the caller left, stop. */
  async pay(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    idempotencyKey: string,
    chain: ChainContext,
    signal?: AbortSignal,
  ): Promise<ServiceResponse<unknown>> {
    const record = this.recordOf(tenantId, orderId, payment, idempotencyKey);
    await this.admit(tenantId, orderId, payment, record);
    const upstream = await this.payments.charge(
      { tenantId, orderId, ...payment },
      idempotencyKey,
      chain,
      signal,
    );
    if (upstream.status !== 201) return upstream;
    const charge = ChargeSchema.parse(upstream.data);
    await this.faults.trip(OrderFaultPoint.AfterCharge, { 'idempotency-key': idempotencyKey });
    if (this.settings.current.applyCharge === ApplyChargeMode.ReadThenWrite) {
      // DEMONSTRATION (apply-once): a read decides, so racing retries add the amount twice.
      await this.readThenWrite.apply(charge, idempotencyKey);
    } else await this.apply(charge, record, upstream.headers[ChainHeader.IdempotentReplayed] === 'true');
    return upstream;
  }

  /**
   * The checks, with the outcomes the API promises: the order exists (404); a key whose Charge is applied already
   * skips the business rules (its payment may be the one that paid the order), and so does a key reused with other
   * parameters (payments, which holds the record of the charge, answers its 422 `idempotency_key_reused`, relayed
   * byte for byte); any other payment must pass the rules. A payment that passes them is admitted whatever the
   * record says, so the record is asked only when the rules refuse (one read for every payable attempt instead
   * of a transaction), in a transaction that is always rolled back: the claim it takes to ask is never committed.
   */
  private async admit(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    record: CoordinateRequest<Charge>,
  ): Promise<void> {
    const order = await this.orders.findForPayment(tenantId, orderId);
    if (order === undefined) throw new OrderNotFoundError(orderId);
    const refusal = refusalOf(order, payment);
    if (refusal === undefined || !this.config.idempotency.enabled) {
      // BENCHMARK SWITCH (`IDEMPOTENCY_ENABLED=false`): the business rules alone, no record asked.
      if (refusal !== undefined) throw refusal;
      return;
    }
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

  /**
   * Applies the Charge once with the record for the key. A fresh Charge: one autocommitted statement writes the
   * completed record and applies it ({@link OrdersRepository.applyChargeWithRecord}; the Charge is the answer,
   * known before the write). A Charge payments `replayed` (its key was here before: the record is most likely
   * there, or orders died before applying it), a key with a record (a released one), a concurrent retry that
   * committed first, or a failed statement: one transaction with the coordinator's claim, which replays or
   * applies. Either way the record's unique index serialises concurrent retries of the key (the second waits, then
   * replays), and the charge's primary key keeps any other path from applying it twice.
   */
  private async apply(charge: Charge, record: CoordinateRequest<Charge>, replayed: boolean): Promise<void> {
    const faultContext = { 'idempotency-key': record.key };
    if (!this.config.idempotency.enabled) {
      // BENCHMARK SWITCH: the charge's primary key alone keeps it from being applied twice (one statement).
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
      await this.orders.applyCharge(this.orders.pool, charge);
      return;
    }
    if (!replayed) {
      await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
      if (await this.applyInOneStatement(charge, record)) return;
    }
    await withPgTransaction(this.orders.pool, (client) =>
      this.coordinator.coordinateInTransaction(client, record, async () => {
        await this.faults.trip(OrderFaultPoint.BeforeApplyWrite, faultContext);
        await this.orders.applyCharge(client, charge);
        return charge;
      }),
    );
  }

  /**
   * The fresh key's apply: false when nothing was written (the key has a record) or the statement failed; the
   * claim decides next, which is safe after a statement that committed but whose answer was lost (it replays).
   */
  private async applyInOneStatement(charge: Charge, record: CoordinateRequest<Charge>): Promise<boolean> {
    try {
      const token = await this.orders.applyChargeWithRecord(charge, {
        operation: record.operation,
        key: record.key,
        owner: `orders.${charge.id}`,
        fingerprint: record.fingerprint ?? '',
        payload: chargeCodec.encode(charge),
        ttlMs: record.ttlMs,
      });
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

/** The business rules of a payment: the error that refuses it, or undefined when it may be charged. */
function refusalOf(order: OrderRow, payment: OrderPayment): Error | undefined {
  if (payment.currency !== order.currency) {
    return new CurrencyMismatchError(order.id, order.currency, payment.currency);
  }
  const owed = order.amount - order.paid_amount;
  if (payment.amount > owed) return new PaymentExceedsBalanceError(order.id, owed, payment.amount);
  return undefined;
}
