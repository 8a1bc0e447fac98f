import type { ColumnType, Generated } from 'kysely';
import type { InvoiceJob, OrderStatus } from '@retry-safe/contracts';

/** `created_at` columns: set by the database (`now()`, millisecond precision so a cursor can quote them exactly). */
type CreatedAt = ColumnType<Date, never, never>;

/**
 * A `bigint` amount in minor units: node-postgres reads an `int8` as a string (it may exceed 2^53 in general), so
 * rows are read through `Number` ({@link amountOf}); every amount here stays far below 2^53.
 */
type Amount = ColumnType<string, number, number>;

/** The number an `int8` column holds (node-postgres reads it as a string). */
export function amountOf(value: string | number): number {
  return Number(value);
}

/**
 * `orders`: one row per order, owned by a tenant. `paid_amount` is the sum of its applied charges;
 * `reserved_amount` the sum of its `order_payment_reservations` (payments admitted, their outcome not known yet).
 */
export interface OrdersTable {
  id: string;
  tenant_id: string;
  amount: Amount;
  currency: string;
  paid_amount: ColumnType<string, number | undefined, number>;
  reserved_amount: ColumnType<string, number | undefined, number>;
  status: OrderStatus;
  created_at: CreatedAt;
}

/**
 * `order_payment_reservations`: what a payment admitted and not yet resolved holds of its order's balance, one row
 * per tenant and idempotency key. Applying its Charge turns it into paid amount, a refusal releases it, and the
 * sweep releases it once `expires_at` (the key's record TTL) has passed.
 */
export interface OrderPaymentReservationsTable {
  tenant_id: string;
  key: string;
  order_id: string;
  amount: Amount;
  created_at: CreatedAt;
  expires_at: Date;
}

/**
 * `order_payments`: the charges applied to an order, one row per Charge. Its primary key is the Charge's id, so a
 * charge can be applied once whatever the retries (a unique constraint, not a read-then-write).
 */
export interface OrderPaymentsTable {
  charge_id: string;
  order_id: string;
  amount: Amount;
  currency: string;
  status: 'succeeded';
  provider_charge_id: string;
  created_at: CreatedAt;
}

/** `invoice_requests`: one per order and invoice version, with the address it goes to (the first request's). */
export interface InvoiceRequestsTable {
  order_id: string;
  version: number;
  email: string;
  created_at: CreatedAt;
  /** When a delivery of it first went on the queue (null: none yet): kept after its outbox rows are deleted. */
  published_at: ColumnType<Date | null, Date | undefined, Date>;
}

/**
 * `invoice_outbox`: one row per delivery to publish, written in the transaction of its request; the relay claims
 * it (`claimed_until`), puts it on the queue (job id = `delivery_id`) and then sets `published_at`. Published rows
 * are deleted after `OUTBOX_RETENTION_MS`.
 */
export interface InvoiceOutboxTable {
  id: Generated<string>;
  delivery_id: string;
  order_id: string;
  version: number;
  payload: ColumnType<InvoiceJob, string, string>;
  /**
   * The W3C trace context (`{"traceparent":...}`) of the request that wrote the row, in the form of BullMQ's
   * telemetry metadata: the job carries it, so every delivery continues that request's trace. Null: not traced.
   */
  trace_context: ColumnType<string | null, string | null, never>;
  created_at: CreatedAt;
  published_at: ColumnType<Date | null, Date | undefined, Date>;
  /** The lease of the relay publishing the row: until then no other relay takes it (null: not claimed). */
  claimed_until: ColumnType<Date | null, never, Date | null>;
}

/** Who owns a reservation: the payment's tenant and idempotency key (its retries find it by them). */
export interface ReservationOwner {
  readonly tenantId: string;
  readonly key: string;
}

/** The orders database as Kysely sees it (the processing records' table is the idempotency store's own). */
export interface OrdersDatabase {
  orders: OrdersTable;
  order_payments: OrderPaymentsTable;
  order_payment_reservations: OrderPaymentReservationsTable;
  invoice_requests: InvoiceRequestsTable;
  invoice_outbox: InvoiceOutboxTable;
}
