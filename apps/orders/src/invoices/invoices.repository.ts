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

/** The row of the claim statement. */
interface ClaimedRow {
  id: string;
  delivery_id: string;
  payload: InvoiceJob;
  trace_context: string | null;
  claimed_until: Date;
}

/** Rows one relay claimed, oldest first, and the lease they were claimed until (null when none were). */
export interface ClaimedRows {
  readonly rows: readonly OutboxRow[];
  readonly lease: Date | null;
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
   * Records the request for `version` (the first one fixes its address) and returns the address it goes to, or
   * undefined when it is a new version of an order that already has `maxVersions`. The primary key
   * `(order_id, version)` decides, not a read before the write: two concurrent first requests make one row, and
   * the second sees the first's address. A new version locks its order row first (`FOR NO KEY UPDATE`, until
   * `trx` ends), so two new versions of one order are counted one after the other and the cap holds.
   */
  async request(
    trx: Transaction<OrdersDatabase>,
    orderId: string,
    version: number,
    email: string,
    maxVersions: number,
  ): Promise<string | undefined> {
    const recorded = await this.recordedEmail(trx, orderId, version);
    if (recorded !== undefined) return recorded;
    await trx.selectFrom('orders').select('id').where('id', '=', orderId).forNoKeyUpdate().execute();
    const { versions } = await trx
      .selectFrom('invoice_requests')
      .select((eb) => eb.fn.countAll<string>().as('versions'))
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    if (Number(versions) >= maxVersions) return undefined;
    const inserted = await trx
      .insertInto('invoice_requests')
      .values({ order_id: orderId, version, email })
      .onConflict((conflict) => conflict.columns(['order_id', 'version']).doNothing())
      .returning('email')
      .executeTakeFirst();
    return inserted?.email ?? (await this.recordedEmail(trx, orderId, version));
  }

  private async recordedEmail(
    trx: Transaction<OrdersDatabase>,
    orderId: string,
    version: number,
  ): Promise<string | undefined> {
    const row = await trx
      .selectFrom('invoice_requests')
      .select('email')
      .where('order_id', '=', orderId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row?.email;
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
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('invoice_outbox')
        .values({ ...outboxValues(job), published_at: new Date() })
        .execute();
      await trx
        .updateTable('invoice_requests')
        .set({ published_at: new Date() })
        .where('order_id', '=', job.orderId)
        .where('version', '=', job.invoiceVersion)
        .where('published_at', 'is', null)
        .execute();
    });
  }

  /**
   * Claims up to `limit` unpublished rows, oldest first, for `leaseMs`: one statement, committed on its own, so no
   * transaction stays open while the claimer publishes. Rows another relay holds a live lease on are not taken
   * (nor rows being claimed right now: `SKIP LOCKED`); rows whose lease ran out (their relay died or stalled) are.
   * Returns them with their lease, the token of {@link releaseClaims}.
   */
  async claimUnpublished(limit: number, leaseMs: number): Promise<ClaimedRows> {
    const { rows } = await sql<ClaimedRow>`
      UPDATE invoice_outbox o SET claimed_until = now() + ${leaseMs} * interval '1 millisecond'
      FROM (SELECT id FROM invoice_outbox
            WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until <= now())
            ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED) c
      WHERE o.id = c.id
      RETURNING o.id, o.delivery_id, o.payload, o.trace_context, o.claimed_until`.execute(this.db);
    const claimed = rows
      .map((row) => ({
        id: row.id,
        deliveryId: row.delivery_id,
        payload: row.payload,
        traceContext: row.trace_context,
      }))
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    return { rows: claimed, lease: rows[0]?.claimed_until ?? null };
  }

  /**
   * Gives claimed rows back at once (their publish failed), so the next round retries them instead of waiting for
   * the lease; only while the lease is still `lease` (a relay that took them since keeps them).
   */
  async releaseClaims(claimed: ClaimedRows): Promise<void> {
    if (claimed.rows.length === 0 || claimed.lease === null) return;
    await this.db
      .updateTable('invoice_outbox')
      .set({ claimed_until: null })
      .where(
        'id',
        'in',
        claimed.rows.map((row) => row.id),
      )
      .where('claimed_until', '=', claimed.lease)
      .where('published_at', 'is', null)
      .execute();
  }

  /**
   * Marks rows published, and their requests (one statement, after the queue took them). A row marked twice (two
   * relays published it: a lease ran out) keeps its first time.
   */
  async markPublished(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await sql`
      WITH marked AS (
        UPDATE invoice_outbox SET published_at = now(), claimed_until = NULL
        WHERE id = ANY(${ids}::bigint[]) AND published_at IS NULL
        RETURNING order_id, version, published_at)
      UPDATE invoice_requests r SET published_at = m.published_at
      FROM marked m
      WHERE r.order_id = m.order_id AND r.version = m.version AND r.published_at IS NULL`.execute(this.db);
  }

  /**
   * Deletes up to `limit` rows published more than `retentionMs` ago (by the database's clock, which stamped
   * them), oldest first; returns how many it deleted (fewer than `limit`: none are left). Their requests keep
   * `published_at`.
   */
  async deletePublished(retentionMs: number, limit: number): Promise<number> {
    const result = await sql`
      DELETE FROM invoice_outbox WHERE id IN (
        SELECT id FROM invoice_outbox
        WHERE published_at < now() - ${retentionMs} * interval '1 millisecond'
        ORDER BY published_at LIMIT ${limit})`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
