import { Inject, Injectable } from '@nestjs/common';
import { context, propagation } from '@opentelemetry/api';
import type { InvoiceJob } from '@retry-safe/contracts';
import { sql, type Kysely, type Transaction } from 'kysely';
import { ORDERS_DB } from '../database/database.module.js';
import type { OrdersDatabase } from '../database/orders-database.js';

/** The channel a commit of an outbox row notifies, so a relay publishes it without waiting for its next poll. */
export const OUTBOX_CHANNEL = 'invoice_outbox';

/** An outbox row the relay publishes. */
export interface OutboxRow {
  readonly id: string;
  readonly deliveryId: string;
  readonly payload: InvoiceJob;
  /** The writing request's trace context, as BullMQ's telemetry metadata; null when it was not traced. */
  readonly traceContext: string | null;
}

/** The active span's W3C trace context as BullMQ's telemetry metadata (JSON of the carrier), or null. */
function currentTraceContext(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length === 0 ? null : JSON.stringify(carrier);
}

/** The outbox row of a delivery: the job it publishes, as one row of either design writes it. */
function outboxValues(job: InvoiceJob) {
  return {
    delivery_id: job.deliveryId,
    order_id: job.orderId,
    version: job.invoiceVersion,
    payload: JSON.stringify(job),
  };
}

/** The SQL of invoice requests and their outbox. */
@Injectable()
export class InvoicesRepository {
  constructor(@Inject(ORDERS_DB) readonly db: Kysely<OrdersDatabase>) {}

  /**
   * Records the request for `version` (the first one fixes its address) and returns the address it goes to. The
   * primary key `(order_id, version)` decides, not a read before the write: two concurrent first requests make
   * one row, and the second sees the first's address.
   */
  async request(
    trx: Transaction<OrdersDatabase>,
    orderId: string,
    version: number,
    email: string,
  ): Promise<string> {
    const inserted = await trx
      .insertInto('invoice_requests')
      .values({ order_id: orderId, version, email })
      .onConflict((conflict) => conflict.columns(['order_id', 'version']).doNothing())
      .returning('email')
      .executeTakeFirst();
    if (inserted !== undefined) return inserted.email;
    const existing = await trx
      .selectFrom('invoice_requests')
      .select('email')
      .where('order_id', '=', orderId)
      .where('version', '=', version)
      .executeTakeFirstOrThrow();
    return existing.email;
  }

  /** Adds a delivery to the outbox, on `trx`, and notifies the relays (delivered when `trx` commits). */
  async addToOutbox(trx: Transaction<OrdersDatabase>, job: InvoiceJob): Promise<void> {
    await trx
      .insertInto('invoice_outbox')
      .values({ ...outboxValues(job), trace_context: currentTraceContext() })
      .execute();
    await sql`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`.execute(trx);
  }

  /**
   * Records a delivery already on the queue (its row born published, so the relay never takes it): the
   * publish-after-commit demonstration's log of what it published, so `GET /v1/orders/{orderId}` tells the same
   * truth in both designs.
   */
  async recordPublished(job: InvoiceJob): Promise<void> {
    await this.db
      .insertInto('invoice_outbox')
      .values({ ...outboxValues(job), published_at: new Date() })
      .execute();
  }

  /**
   * Up to `limit` unpublished rows, oldest first, locked for `trx`: `SKIP LOCKED`, so relays of other replicas
   * take other rows instead of waiting, and no row is published by two relays at once.
   */
  async claimUnpublished(trx: Transaction<OrdersDatabase>, limit: number): Promise<OutboxRow[]> {
    const rows = await trx
      .selectFrom('invoice_outbox')
      .select(['id', 'delivery_id', 'payload', 'trace_context'])
      .where('published_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    return rows.map((row) => ({
      id: row.id,
      deliveryId: row.delivery_id,
      payload: row.payload,
      traceContext: row.trace_context,
    }));
  }

  /** Marks rows published (in the transaction that claimed them). */
  async markPublished(trx: Transaction<OrdersDatabase>, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await trx
      .updateTable('invoice_outbox')
      .set({ published_at: new Date() })
      .where('id', 'in', ids)
      .execute();
  }
}
