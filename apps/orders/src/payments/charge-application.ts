import type { Charge } from '@retry-safe/contracts';
import type { RecordOf } from '../config/orders-idempotency-settings.js';
import type { ReservationOwner } from '../database/orders-database.js';

/**
 * How a Charge payments answered is applied to its order, once, and its payment's reservation resolved. The
 * design lets the write decide (the key's record and the charge's primary key, in the applying transaction); the
 * apply-once scenario's demonstration lets a read decide. Both trip `orders/before-apply-write` once applying is
 * decided and nothing is written yet.
 */
export interface ChargeApplication {
  /** Applies `charge` under `record` (its payment's key) and gives back what `owner` reserved for it. */
  apply(charge: Charge, record: RecordOf<Charge>, owner: ReservationOwner): Promise<void>;
}

/** DI token of the {@link ChargeApplication} in force (bound by the payments module from the settings). */
export const CHARGE_APPLICATION = Symbol('CHARGE_APPLICATION');
