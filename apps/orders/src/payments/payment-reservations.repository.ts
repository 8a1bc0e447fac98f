import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { ORDERS_POOL } from '../database/database.module.js';
import { amountOf, type ReservationOwner } from '../database/orders-database.js';
import { withPgTransaction, type NamedStatement } from '../database/pg-transaction.js';

/** What reserving a payment's amount found (see {@link PaymentReservations.reserve}). */
export const ReservationOutcome = {
  /** This call reserved the amount: the payment may be charged. */
  Reserved: 'reserved',
  /** The key holds a reservation already (an earlier attempt of the payment, outcome unknown): nothing reserved. */
  Held: 'held',
  /** The amount does not fit beside what is paid and reserved: nothing reserved. */
  NoRoom: 'no-room',
} as const;
/** One of {@link ReservationOutcome}'s values. */
export type ReservationOutcome = (typeof ReservationOutcome)[keyof typeof ReservationOutcome];

/** The answer of {@link PaymentReservations.reserve}. */
export type Reservation =
  | { readonly outcome: typeof ReservationOutcome.Reserved }
  | { readonly outcome: typeof ReservationOutcome.Held; readonly orderId: string; readonly amount: number }
  | {
      readonly outcome: typeof ReservationOutcome.NoRoom;
      readonly amount: number;
      readonly paidAmount: number;
      readonly reservedAmount: number;
    };

// The key's row first (its primary key serialises the key's attempts: a second waits for the first's commit),
// then the one conditional UPDATE: it adds to `reserved_amount` only if paid + reserved + amount <= amount, decided
// on the row's latest version under its lock, never on an earlier read. A key that has its row gets that row back
// from the same statement: `DO UPDATE` (a no-op) locks the row's latest committed version and returns it, where
// `DO NOTHING` returned nothing and a second read could find the row gone (another attempt of the key resolved it
// in between; under a burst of one key's retries, again and again). `xmax = 0` only on a row this statement
// inserted. The order as the statement found it, for the refusal. $1 tenant, $2 key, $3 order, $4 amount, $5 TTL
// in ms.
const RESERVE: NamedStatement = {
  name: 'reservations:reserve',
  text: `WITH ins AS (
      INSERT INTO order_payment_reservations (tenant_id, key, order_id, amount, expires_at)
      VALUES ($1, $2, $3, $4, now() + $5::float8 * interval '1 millisecond')
      ON CONFLICT (tenant_id, key) DO UPDATE SET key = order_payment_reservations.key
      RETURNING order_id, amount, xmax = 0 AS inserted
    ), reserved AS (
      UPDATE orders SET reserved_amount = orders.reserved_amount + ins.amount FROM ins
      WHERE ins.inserted AND orders.id = ins.order_id AND orders.tenant_id = $1
        AND orders.paid_amount + orders.reserved_amount + ins.amount <= orders.amount
      RETURNING orders.id
    )
    SELECT (SELECT count(*) FROM ins WHERE inserted)::int AS inserted,
      (SELECT count(*) FROM reserved)::int AS reserved,
      (SELECT order_id FROM ins WHERE NOT inserted) AS held_order_id,
      (SELECT amount FROM ins WHERE NOT inserted) AS held_amount,
      o.amount, o.paid_amount, o.reserved_amount
    FROM orders o WHERE o.id = $3 AND o.tenant_id = $1`,
};
// The key's reservation deleted and its amount given back to the order, in one statement.
const RELEASE: NamedStatement = {
  name: 'reservations:release',
  text: `WITH released AS (
      DELETE FROM order_payment_reservations WHERE tenant_id = $1 AND key = $2 AND order_id = $3
      RETURNING order_id, amount
    )
    UPDATE orders SET reserved_amount = orders.reserved_amount - released.amount
    FROM released WHERE orders.id = released.order_id`,
};
// Up to $1 expired reservations released, oldest first; rows another sweeper (or an apply) holds are skipped.
const SWEEP: NamedStatement = {
  name: 'reservations:sweep',
  text: `WITH expired AS (
      SELECT tenant_id, key FROM order_payment_reservations WHERE expires_at <= now()
      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
    ), released AS (
      DELETE FROM order_payment_reservations r USING expired e WHERE r.tenant_id = e.tenant_id AND r.key = e.key
      RETURNING r.order_id, r.amount
    ), per_order AS (
      SELECT order_id, sum(amount) AS amount FROM released GROUP BY order_id
    ), given_back AS (
      UPDATE orders SET reserved_amount = orders.reserved_amount - per_order.amount
      FROM per_order WHERE orders.id = per_order.order_id RETURNING 1
    )
    SELECT count(*)::int AS released FROM released`,
};

/** Thrown inside the reservation's transaction to roll back the key's row when the amount did not fit. */
class NoRoom extends Error {
  constructor(readonly reservation: Reservation) {
    super('no room');
  }
}

/**
 * The reservations of the order balance payments in flight hold (`order_payment_reservations`, summed in
 * `orders.reserved_amount`). Every statement is short and waits on nothing but rows of this database.
 */
@Injectable()
export class PaymentReservations {
  constructor(@Inject(ORDERS_POOL) private readonly pool: pg.Pool) {}

  /**
   * Reserves `amount` of the order's balance for the key, in one short transaction: the key's row and the one
   * conditional UPDATE, committed together, or neither. A key that holds a reservation already reserves nothing
   * and answers it (`held`: the retry of a payment whose outcome was not known). Undefined: no such order.
   */
  async reserve(
    owner: ReservationOwner,
    orderId: string,
    amount: number,
    ttlMs: number,
  ): Promise<Reservation | undefined> {
    try {
      return await withPgTransaction(this.pool, (client) =>
        this.reserveIn(client, owner, orderId, amount, ttlMs),
      );
    } catch (error) {
      if (error instanceof NoRoom) return error.reservation;
      throw error;
    }
  }

  /** Gives the key's reservation on `orderId` back to the order (on `executor`); nothing when it has none. */
  async release(
    owner: ReservationOwner,
    orderId: string,
    executor: pg.Pool | pg.PoolClient = this.pool,
  ): Promise<void> {
    await executor.query({ ...RELEASE, values: [owner.tenantId, owner.key, orderId] });
  }

  /**
   * Releases the reservations whose key's records expired, `batchSize` at a time until a batch comes back short
   * or `signal` aborts. Answers how many it released.
   */
  async sweep(batchSize: number, signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ released: number }>({ ...SWEEP, values: [batchSize] });
      const released = rows[0]?.released ?? 0;
      total += released;
      if (released < batchSize || signal?.aborted === true) return total;
    }
  }

  private async reserveIn(
    client: pg.PoolClient,
    owner: ReservationOwner,
    orderId: string,
    amount: number,
    ttlMs: number,
  ): Promise<Reservation | undefined> {
    const { rows } = await client.query<ReserveRow>({
      ...RESERVE,
      values: [owner.tenantId, owner.key, orderId, amount, ttlMs],
    });
    const row = rows[0];
    if (row === undefined) return undefined;
    if (row.reserved > 0) return { outcome: ReservationOutcome.Reserved };
    if (row.inserted > 0) {
      throw new NoRoom({
        outcome: ReservationOutcome.NoRoom,
        amount: amountOf(row.amount),
        paidAmount: amountOf(row.paid_amount),
        reservedAmount: amountOf(row.reserved_amount),
      });
    }
    return {
      outcome: ReservationOutcome.Held,
      orderId: row.held_order_id!,
      amount: amountOf(row.held_amount!),
    };
  }
}

interface ReserveRow {
  readonly inserted: number;
  readonly reserved: number;
  /** The key's reservation when it had one already (nothing inserted), else null. */
  readonly held_order_id: string | null;
  readonly held_amount: string | null;
  readonly amount: string;
  readonly paid_amount: string;
  readonly reserved_amount: string;
}
