import type { OrderPayment } from '@retry-safe/contracts';
import type { ReservationOwner } from '../database/orders-database.js';
import type { OrderRow } from '../orders/orders.repository.js';

/**
 * What a balance check decided: the payment may be charged (`reserved`: it holds its key's reservation of its
 * amount), or `refusal`, the error that refuses it unless the key's record admits it.
 */
export type BalanceDecision = { readonly reserved: boolean } | { readonly refusal: Error };

/**
 * How a payment is kept within what its order owes. The design reserves the amount with one conditional UPDATE
 * before the charge; the overpay scenario's demonstration reads the balance and charges on the read's word.
 */
export interface BalanceCheck {
  /** Decides whether `payment` (of `owner`, the tenant and key) fits `order`, an order of the same currency. */
  check(order: OrderRow, payment: OrderPayment, owner: ReservationOwner): Promise<BalanceDecision>;
}

/** DI token of the {@link BalanceCheck} in force (bound by the payments module from the settings). */
export const BALANCE_CHECK = Symbol('BALANCE_CHECK');
