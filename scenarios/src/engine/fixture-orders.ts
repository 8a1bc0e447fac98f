import { MAX_AMOUNT_MINOR, isIso4217Currency } from '@retry-safe/contracts';
import type { HttpResult } from './http.js';

/**
 * A payment needs an existing order of its tenant (orders answers 404 `order_not_found` otherwise). Suites and
 * scenarios about payments, not orders, create one through `POST /v1/orders` first; it costs the most one payment
 * may be, so no business rule of orders refuses their payments. An invalid currency (the payment is meant to be
 * refused at the edge) gets an order in EUR.
 */
export function fixtureOrderBody(currency = 'EUR'): { amount: number; currency: string } {
  return { amount: MAX_AMOUNT_MINOR, currency: isIso4217Currency(currency) ? currency : 'EUR' };
}

/** The id of the order a `POST /v1/orders` created. @throws Error with the answer for anything but a 201. */
export function createdOrderId(res: Pick<HttpResult, 'status' | 'text' | 'body'>): string {
  const created = res.body as { id?: unknown } | undefined;
  if (res.status !== 201 || typeof created?.id !== 'string') {
    throw new Error(`POST /v1/orders answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  return created.id;
}
