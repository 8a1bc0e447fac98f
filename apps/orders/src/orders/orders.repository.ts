import { Inject, Injectable } from '@nestjs/common';
import type { Charge } from '@retry-safe/contracts';
import { OrderStatus } from '@retry-safe/contracts';
import { RECORD_CTE, type RecordedStatement, type StatementWrite } from '@retry-safe/idempotency';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type pg from 'pg';
import { ORDERS_DB, ORDERS_POOL } from '../database/database.module.js';
import type { NamedStatement } from '../database/pg-transaction.js';
import {
  amountOf,
  type OrdersDatabase,
  type OrdersTable,
  type ReservationOwner,
} from '../database/orders-database.js';
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
    amount: amountOf(row.amount),
    currency: row.currency,
    paidAmount: amountOf(row.paid_amount),
    createdAt: row.created_at.toISOString(),
  });
}

// The statements of the hot paths, named: each pooled connection parses and plans them once.
const ORDER_COLUMNS = 'id, tenant_id, amount, currency, paid_amount, reserved_amount, status, created_at';
// A new order's row, values $1..$6: by the insert alone and by the write with its record.
const INTO_ORDERS = 'INSERT INTO orders (id, tenant_id, amount, currency, status, created_at)';
const INSERT_ORDER: NamedStatement = {
  name: 'orders:insert',
  text: `${INTO_ORDERS} VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ORDER_COLUMNS}`,
};
const FIND_ORDER: NamedStatement = {
  name: 'orders:find-for-payment',
  text: `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1 AND tenant_id = $2`,
};
// A Charge's row, values $1..$6 (`paymentRowValues`): by the read-then-write demonstration and by the apply.
const INTO_ORDER_PAYMENTS =
  'INSERT INTO order_payments (charge_id, order_id, amount, currency, status, provider_charge_id)';
/** A Charge's row, once: the primary key decides (values $1..$6: {@link paymentRowValues}). */
export const INSERT_PAYMENT_ROW = `${INTO_ORDER_PAYMENTS} VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (charge_id) DO NOTHING`;
/**
 * A Charge applied, as the expressions of a write with its key's record (`RECORD_CTE`): the Charge's row inserted
 * once (`applied`: the primary key decides), the payment key's reservation on the order deleted (`released`: $9
 * tenant, $10 key), and in one UPDATE what was inserted added to the order's `paid_amount` and what was released
 * taken from its `reserved_amount` ($7 paid, $8 awaiting payment). Each writes only through the record's row, so a
 * key that already has a record writes nothing here (its replay gives the reservation back).
 */
const APPLIED_SUM = 'COALESCE((SELECT sum(amount) FROM applied), 0)';
const APPLY_CHARGE_CTES = [
  `applied AS (${INTO_ORDER_PAYMENTS}
    SELECT $1, $2, $3, $4, $5, $6 FROM ${RECORD_CTE} ON CONFLICT (charge_id) DO NOTHING RETURNING order_id, amount)`,
  `released AS (DELETE FROM order_payment_reservations
    WHERE tenant_id = $9 AND key = $10 AND order_id = $2 AND EXISTS (SELECT 1 FROM ${RECORD_CTE}) RETURNING amount)`,
  `paid AS (UPDATE orders SET paid_amount = orders.paid_amount + ${APPLIED_SUM},
      reserved_amount = orders.reserved_amount - COALESCE((SELECT sum(amount) FROM released), 0),
      status = CASE WHEN orders.paid_amount + ${APPLIED_SUM} >= orders.amount THEN $7 ELSE $8 END
    WHERE orders.id = $2 AND (EXISTS (SELECT 1 FROM applied) OR EXISTS (SELECT 1 FROM released)))`,
];
/** A new order's row, as the expression of a write with its key's record: inserted only through the record's row. */
const CREATE_ORDER_CTES = [`created AS (${INTO_ORDERS} SELECT $1, $2, $3, $4, $5, $6 FROM ${RECORD_CTE})`];

/** An `order_payments` row's values, in the column order of INSERT_PAYMENT_ROW. */
export function paymentRowValues(charge: Charge): unknown[] {
  return [charge.id, charge.orderId, charge.amount, charge.currency, charge.status, charge.providerChargeId];
}

/** The SQL of the orders service, every statement tenant-scoped. */
@Injectable()
export class OrdersRepository {
  constructor(
    @Inject(ORDERS_DB) readonly db: Kysely<OrdersDatabase>,
    @Inject(ORDERS_POOL) readonly pool: pg.Pool,
  ) {}

  /**
   * Inserts a new order awaiting payment, on `executor`: the caller's transaction, so it commits with its
   * processing record (the pool: autocommitted alone, as the record-in-Redis demonstration does). One named
   * statement.
   */
  async insert(
    executor: pg.Pool | pg.PoolClient,
    order: { id: string; tenantId: string; amount: number; currency: string; createdAt: Date },
  ): Promise<Order> {
    const { rows } = await executor.query<OrderRow>({
      ...INSERT_ORDER,
      values: [
        order.id,
        order.tenantId,
        order.amount,
        order.currency,
        OrderStatus.AwaitingPayment,
        order.createdAt,
      ],
    });
    const row = rows[0];
    if (row === undefined) throw new Error('INSERT INTO orders returned no row');
    return orderOf(row);
  }

  /**
   * A new order awaiting payment, as a write with its key's record ({@link CREATE_ORDER_CTES}), and the order it
   * makes: known before the statement (`createdAt` at the column's ms precision, the amounts as the row keeps
   * them), so the 201 body, the row and a replay agree.
   */
  createStatement(order: {
    id: string;
    tenantId: string;
    amount: number;
    currency: string;
    createdAt: Date;
  }): StatementWrite<Order> {
    const value = OrderSchema.parse({
      id: order.id,
      status: OrderStatus.AwaitingPayment,
      amount: order.amount,
      currency: order.currency,
      paidAmount: 0,
      createdAt: order.createdAt.toISOString(),
    });
    return {
      value,
      statement: {
        name: 'orders:create',
        ctes: CREATE_ORDER_CTES,
        values: [order.id, order.tenantId, order.amount, order.currency, value.status, order.createdAt],
      },
    };
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
      amount: amountOf(row.amount),
      currency: row.currency,
      status: row.status,
      createdAt: row.created_at.toISOString(),
    }));
  }

  /**
   * An order's invoice requests, by version: `published` once one of its deliveries is on the queue (the request
   * remembers it, so the answer stays when the retention deletes its outbox rows).
   */
  async invoices(orderId: string): Promise<OrderInvoice[]> {
    const rows = await this.db
      .selectFrom('invoice_requests')
      .select(['version', 'email', 'published_at'])
      .where('order_id', '=', orderId)
      .orderBy('version')
      .execute();
    return rows.map((row) => ({
      version: row.version,
      email: row.email,
      status: row.published_at === null ? 'requested' : 'published',
    }));
  }

  /** The tenant's order, for a payment: one named statement on the pool (parsed once per connection). */
  async findForPayment(tenantId: string, orderId: string): Promise<OrderRow | undefined> {
    const { rows } = await this.pool.query<OrderRow>({ ...FIND_ORDER, values: [orderId, tenantId] });
    return rows[0];
  }

  /**
   * Applying `charge` once, as a write with its key's record ({@link APPLY_CHARGE_CTES}): a second apply of the
   * same Charge inserts nothing and adds nothing (`ON CONFLICT DO NOTHING` on its id), and the order's update reads
   * the rows the insert and the reservation's delete returned, so it adds only what was inserted and takes back
   * only what was reserved.
   */
  applyChargeStatement(charge: Charge, owner: ReservationOwner): RecordedStatement {
    return {
      name: 'orders:apply-charge',
      ctes: APPLY_CHARGE_CTES,
      values: [
        ...paymentRowValues(charge),
        OrderStatus.Paid,
        OrderStatus.AwaitingPayment,
        owner.tenantId,
        owner.key,
      ],
    };
  }
}
