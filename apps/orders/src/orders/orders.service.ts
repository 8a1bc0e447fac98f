import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RuntimeSettings, ValidationFailedError } from '@retry-safe/app-shell';
import { OrderStatus, type OrderCreate, type OrderListQuery } from '@retry-safe/contracts';
import {
  CoordinateOutcome,
  IdempotencyCoordinator,
  fingerprintOf,
  schemaCodec,
  type CoordinatedResult,
} from '@retry-safe/idempotency';
import { OrderNotFoundError } from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { CreateRecordMode, type OrdersSettings } from '../config/orders-settings.js';
import { ORDERS_COORDINATOR } from '../database/database.module.js';
import { withPgTransaction } from '../database/pg-transaction.js';
import { RecordInRedis } from '../demonstrations/record-in-redis.service.js';
import { OrderFaultPoint, OrderFaults } from '../faults/order-faults.js';
import { OrderSchema, type Order, type OrderDetails, type OrderPage } from './order.js';
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
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(ORDERS_COORDINATOR) private readonly coordinator: IdempotencyCoordinator,
    private readonly orders: OrdersRepository,
    private readonly faults: OrderFaults,
    private readonly settings: RuntimeSettings<OrdersSettings>,
    private readonly recordInRedis: RecordInRedis,
  ) {
    if (!config.idempotency.enabled) {
      new Logger(OrdersService.name).warn({
        msg: 'IDEMPOTENCY_ENABLED=false: BENCHMARK SWITCH. Orders are created and charges applied with no processing record, so a retry creates a second order. Never run this in production.',
      });
    }
  }

  /**
   * Creates an order once per tenant and key. A fresh key costs one autocommitted statement that writes the order
   * row and its completed processing record together ({@link OrdersRepository.insertWithRecord}): the 201 body is
   * known before it (the id minted here, `createdAt` set here at the column's ms precision), so the record holds
   * the very bytes a replay answers. A crash leaves both or neither, so the retry finds the record and replays the
   * order instead of creating a second one. When the key has a record (replay, reuse, released or expired) or a
   * concurrent call commits it first, that statement writes nothing and the call goes through the coordinator's
   * claim in one transaction with the INSERT (`coordinateInTransaction`): the same order replayed,
   * `idempotency_key_reused` before anything is written, or the order created again for a released key. The db-effect scenario's demonstration (`createRecord: redis`) keeps the record in
   * Redis instead, to show the second order it costs.
   */
  async create(
    tenantId: string,
    order: OrderCreate,
    idempotencyKey: string,
  ): Promise<CoordinatedResult<Order>> {
    const record = {
      operation: createOrderOperation(tenantId),
      key: idempotencyKey,
      ttlMs: this.config.idempotency.ttlMs,
      codec: orderCodec,
      fingerprint: fingerprintOf({ amount: order.amount, currency: order.currency }),
    };
    const row = { id: randomUUID(), tenantId, ...order, createdAt: new Date() };
    if (this.settings.current.createRecord === CreateRecordMode.Redis) {
      // DEMONSTRATION (db-effect): the order commits on its own (one INSERT), the record completes later in Redis.
      return this.recordInRedis.coordinate(record, async () => {
        const created = await this.orders.insert(this.orders.pool, row);
        await this.faults.trip(OrderFaultPoint.AfterCreateCommit, { 'idempotency-key': idempotencyKey });
        return created;
      });
    }
    const result = this.config.idempotency.enabled
      ? ((await this.createInOneStatement(row, record)) ??
        // The key has a record (or the statement failed): the claim decides, in one transaction with the INSERT.
        (await withPgTransaction(this.orders.pool, (client) =>
          this.coordinator.coordinateInTransactionWithOutcome(client, record, () =>
            this.orders.insert(client, row),
          ),
        )))
      : {
          // BENCHMARK SWITCH (`IDEMPOTENCY_ENABLED=false`): the INSERT alone, so a retry creates a second order.
          value: await this.orders.insert(this.orders.pool, row),
          outcome: CoordinateOutcome.Unprotected,
          fencingToken: 0,
        };
    await this.faults.trip(OrderFaultPoint.AfterCreateCommit, { 'idempotency-key': idempotencyKey });
    return result;
  }

  /**
   * The fresh key's path: the order and its record in one statement, or undefined when nothing was written (the
   * key has a record) or the statement failed. Either way the coordinator's path decides next, and it is safe
   * after a statement that did commit but whose answer was lost: it finds the record and replays it.
   */
  private async createInOneStatement(
    row: { id: string; tenantId: string; amount: number; currency: string; createdAt: Date },
    record: { operation: string; key: string; ttlMs: number; fingerprint: string },
  ): Promise<CoordinatedResult<Order> | undefined> {
    // The 201 body, through the schema as every answer (the same key order, so the same bytes as a replay).
    const value = OrderSchema.parse({
      id: row.id,
      status: OrderStatus.AwaitingPayment,
      amount: row.amount,
      currency: row.currency,
      paidAmount: 0,
      createdAt: row.createdAt.toISOString(),
    });
    try {
      const fencingToken = await this.orders.insertWithRecord(
        { ...value, tenantId: row.tenantId },
        { ...record, owner: `orders.${row.id}`, payload: orderCodec.encode(value) },
      );
      return fencingToken === undefined
        ? undefined
        : { value, outcome: CoordinateOutcome.Executed, fencingToken };
    } catch {
      return undefined;
    }
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
