import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ValidationFailedError } from '@retry-safe/app-shell/http';
import type { OrderCreate, OrderListQuery } from '@retry-safe/contracts';
import { fingerprintOf, schemaCodec, type CoordinatedResult } from '@retry-safe/idempotency';
import { OrderNotFoundError } from '../common/orders-errors.js';
import { OrderSchema, type Order, type OrderDetails, type OrderPage } from './order.js';
import { ORDER_CREATION, type OrderCreation } from './order-creation.js';
import { OrdersRepository, orderOf, type OrderCursor } from './orders.repository.js';

const orderCodec = schemaCodec(OrderSchema);

/** The idempotency scope of a tenant's new orders: keys of two tenants never meet. */
export function createOrderOperation(tenantId: string): string {
  return `order.create.${tenantId.replaceAll('-', '')}`;
}

/** Creating, reading and listing a tenant's orders. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    @Inject(ORDER_CREATION) private readonly creation: OrderCreation,
  ) {}

  /**
   * Creates an order once per tenant and key: its record is the key's (operation per tenant, a fingerprint of the
   * amount and currency, the 201 body stored so a replay is the same bytes), kept where the {@link OrderCreation}
   * in force keeps it (the design: in the order's transaction).
   */
  create(tenantId: string, order: OrderCreate, idempotencyKey: string): Promise<CoordinatedResult<Order>> {
    return this.creation.create(
      { id: randomUUID(), tenantId, amount: order.amount, currency: order.currency, createdAt: new Date() },
      {
        operation: createOrderOperation(tenantId),
        key: idempotencyKey,
        codec: orderCodec,
        fingerprint: fingerprintOf({ amount: order.amount, currency: order.currency }),
      },
    );
  }

  /** The tenant's order with its charges and invoice requests; `order_not_found` for another tenant's. */
  async get(tenantId: string, orderId: string): Promise<OrderDetails> {
    const row = await this.orders.find(this.orders.db, tenantId, orderId);
    if (row === undefined) throw new OrderNotFoundError(orderId);
    const [payments, invoices] = await Promise.all([
      this.orders.payments(orderId),
      this.orders.invoices(orderId),
    ]);
    return { ...orderOf(row), payments, invoices };
  }

  /** A page of the tenant's orders, newest first. */
  async list(tenantId: string, query: OrderListQuery): Promise<OrderPage> {
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    // One more than asked: its presence says whether there is a next page.
    const rows = await this.orders.list(tenantId, query.limit + 1, cursor);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const more = rows.length > query.limit && last !== undefined;
    return {
      orders: page.map(orderOf),
      nextCursor: more ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    };
  }
}

/** A cursor is opaque to clients: base64url of `<createdAt ISO>/<id>` of the last order of a page. */
export function encodeCursor(cursor: OrderCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}/${cursor.id}`).toString('base64url');
}

const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** @throws ValidationFailedError for anything {@link encodeCursor} did not produce. */
export function decodeCursor(value: string): OrderCursor {
  const match = CURSOR.exec(Buffer.from(value, 'base64url').toString('utf8'));
  const createdAt = new Date(match?.[1] ?? Number.NaN);
  if (match === null || Number.isNaN(createdAt.getTime())) {
    throw new ValidationFailedError(['cursor: must be the nextCursor of a previous page']);
  }
  return { createdAt, id: match[2] as string };
}
