import { Inject, Injectable } from '@nestjs/common';
import { ChargeSchema, type Charge, type OrderPayment } from '@retry-safe/contracts';
import { IdempotencyErrorCode, isIdempotencyError, schemaCodec } from '@retry-safe/idempotency';
import { IdempotentMethod } from '@retry-safe/idempotency/nest';
import type pg from 'pg';
import { CurrencyMismatchError, OrderNotFoundError } from '../common/orders-errors.js';
import { recordedWrite, type RecordOf } from '../config/orders-idempotency-settings.js';
import { ORDERS_POOL } from '../database/database.module.js';
import { withPgTransaction } from '../database/pg-transaction.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { BALANCE_CHECK, type BalanceCheck } from './balance-check.js';

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
 * Admitting a payment before it leaves for payments: the order exists (404), its currency (422), and its balance
 * (the {@link BalanceCheck} in force: the design reserves the amount).
 */
@Injectable()
export class PaymentAdmission {
  constructor(
    private readonly orders: OrdersRepository,
    @Inject(BALANCE_CHECK) private readonly balance: BalanceCheck,
    @Inject(ORDERS_POOL) private readonly pool: pg.Pool,
  ) {}

  /**
   * The checks, with the outcomes the API promises: the order exists (404); a key whose Charge is applied already
   * skips the business rules (its payment may be the one that paid the order), and so does a key reused with other
   * parameters (payments, which holds the record of the charge, answers its 422 `idempotency_key_reused`, relayed
   * byte for byte); any other payment must pass the rules. A key holding its reservation (an earlier attempt whose
   * outcome was not known: a timeout, a 5xx, a crash) goes on without reserving again.
   */
  async admit(
    tenantId: string,
    orderId: string,
    payment: OrderPayment,
    record: RecordOf<Charge>,
  ): Promise<Admission> {
    const order = await this.orders.findForPayment(tenantId, orderId);
    if (order === undefined) throw new OrderNotFoundError(orderId);
    if (payment.currency !== order.currency) {
      await this.refuse(new CurrencyMismatchError(order.id, order.currency, payment.currency), record);
      return NOT_RESERVED;
    }
    const decision = await this.balance.check(order, payment, { tenantId, key: record.key });
    if (!('refusal' in decision)) return decision;
    await this.refuse(decision.refusal, record);
    return NOT_RESERVED;
  }

  /**
   * Throws `refusal` unless the key's record admits the payment anyway: a completed record (its Charge is applied;
   * payments will replay it) or a key reused with other parameters. Asked only when the rules refuse (one read for
   * every payable attempt instead of a transaction), in a transaction that is always rolled back: the claim it
   * takes to ask is never committed. With the records off (the benchmark switch) the rules alone decide.
   */
  private async refuse(refusal: Error, record: RecordOf<Charge>): Promise<void> {
    try {
      await withPgTransaction(this.pool, async (client) => {
        await this.refuseUnlessRecorded(client, record, refusal);
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
   * The claim of `record` on `client`'s open transaction (the library's transactional form): a completed record
   * replays its Charge, another fingerprint is refused, and a free key runs this method, which throws `refusal`.
   * Called through the library's wrapper (it replaced the method when the app started); {@link refuse} rolls back.
   */
  @IdempotentMethod<[pg.PoolClient, RecordOf<Charge>, Error], Charge>({
    ...recordedWrite(1, schemaCodec(ChargeSchema)),
    transaction: (client) => client,
  })
  refuseUnlessRecorded(_client: pg.PoolClient, _record: RecordOf<Charge>, refusal: Error): Promise<Charge> {
    return Promise.reject(refusal);
  }
}
