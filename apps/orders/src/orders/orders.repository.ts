import { Inject, Injectable } from '@nestjs/common';
import type { Charge } from '@retry-safe/contracts';
import { OrderStatus } from '@retry-safe/contracts';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { ORDERS_DB } from '../database/database.module.js';
import type { OrdersDatabase, OrdersTable } from '../database/orders-database.js';
import { OrderSchema, type Order, type OrderInvoice, type OrderPayment } from './order.js';

/** Where a page of the list starts: after this order (newest first). */
export interface OrderCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** The orders database, or an open transaction on it. */
export type OrdersExecutor = Kysely<OrdersDatabase> | Transaction<OrdersDatabase>;

/** One row of `orders`, as the database returns it. */
export type OrderRow = Selectable<OrdersTable>;

/** The API shape of a row (through {@link OrderSchema}, so its bytes do not depend on the row's column order). */
export function orderOf(row: OrderRow): Order {
  return OrderSchema.parse({
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    paidAmount: row.paid_amount,
    createdAt: row.created_at.toISOString(),
  });
}

/** The SQL of the orders service, every statement tenant-scoped. */
@Injectable()
export class OrdersRepository {
  constructor(@Inject(ORDERS_DB) readonly db: Kysely<OrdersDatabase>) {}

  /** Inserts a new order awaiting payment; on `trx`, so it commits with its processing record. */
  async insert(
    trx: OrdersExecutor,
    order: { id: string; tenantId: string; amount: number; currency: string },
  ): Promise<Order> {
    const row = await trx
      .insertInto('orders')
      .values({
        id: order.id,
        tenant_id: order.tenantId,
        amount: order.amount,
        currency: order.currency,
        status: OrderStatus.AwaitingPayment,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return orderOf(row);
  }

  /** The tenant's order, or undefined (another tenant's order is not found either). */
  find(trx: OrdersExecutor, tenantId: string, orderId: string): Promise<OrderRow | undefined> {
    return trx
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', orderId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
  }

  /** Up to `limit` of the tenant's orders, newest first, after `cursor`. */
  async list(tenantId: string, limit: number, cursor?: OrderCursor): Promise<OrderRow[]> {
    let query = this.db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId);
    if (cursor !== undefined) {
      query = query.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(cursor.createdAt, cursor.id)),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** The charges applied to an order, oldest first. */
  async payments(orderId: string): Promise<OrderPayment[]> {
    const rows = await this.db
      .selectFrom('order_payments')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('charge_id')
      .execute();
    return rows.map((row) => ({
      chargeId: row.charge_id,
      amount: row.amount,
      currency: row.currency,
      status: row.status,
      createdAt: row.created_at.toISOString(),
    }));
  }

  /** An order's invoice requests, by version: `published` once one of its deliveries is on the queue. */
  async invoices(orderId: string): Promise<OrderInvoice[]> {
    const rows = await this.db
      .selectFrom('invoice_requests as r')
      .select(['r.version', 'r.email'])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('invoice_outbox as o')
              .select('o.id')
              .whereRef('o.order_id', '=', 'r.order_id')
              .whereRef('o.version', '=', 'r.version')
              .where('o.published_at', 'is not', null),
          )
          .as('published'),
      )
      .where('r.order_id', '=', orderId)
      .orderBy('r.version')
      .execute();
    return rows.map((row) => ({
      version: row.version,
      email: row.email,
      status: row.published ? 'published' : 'requested',
    }));
  }

  /**
   * Applies a Charge to its order, once: the charge row's primary key is the Charge's id, so a second apply of the
   * same Charge inserts nothing and adds nothing (`ON CONFLICT DO NOTHING`, decided by the unique index, not by a
   * read before the write). The order becomes `paid` when nothing is owed. True if this call applied it.
   */
  async applyCharge(trx: Transaction<OrdersDatabase>, charge: Charge): Promise<boolean> {
    if (!(await this.insertPayment(trx, charge))) return false;
    await this.addToPaid(trx, charge.orderId, charge.amount);
    return true;
  }

  /** Whether a Charge is recorded against its order (as the read-then-write demonstration asks, before writing). */
  async isChargeRecorded(trx: Transaction<OrdersDatabase>, chargeId: string): Promise<boolean> {
    const row = await trx
      .selectFrom('order_payments')
      .select('charge_id')
      .where('charge_id', '=', chargeId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Records a Charge against its order; false when its row exists (the primary key decides). */
  async insertPayment(trx: Transaction<OrdersDatabase>, charge: Charge): Promise<boolean> {
    const inserted = await trx
      .insertInto('order_payments')
      .values({
        charge_id: charge.id,
        order_id: charge.orderId,
        amount: charge.amount,
        currency: charge.currency,
        status: charge.status,
        provider_charge_id: charge.providerChargeId,
      })
      .onConflict((conflict) => conflict.column('charge_id').doNothing())
      .returning('charge_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** Adds `amount` to what the order was paid; the order becomes `paid` when nothing is owed. */
  async addToPaid(trx: Transaction<OrdersDatabase>, orderId: string, amount: number): Promise<void> {
    await trx
      .updateTable('orders')
      .set((eb) => ({
        paid_amount: eb('paid_amount', '+', amount),
        status: sql<OrderStatus>`CASE WHEN paid_amount + ${amount} >= amount
          THEN ${OrderStatus.Paid} ELSE ${OrderStatus.AwaitingPayment} END`,
      }))
      .where('id', '=', orderId)
      .execute();
  }
}
