/**
 * A client of a stack in containers, over `fetch`: the same calls as e2e/support/client.ts, retried while the stack
 * answers 502/503/504 or not at all, since the compose suites restart its containers under it.
 */
import { DEMO_TENANTS, createdOrderId, fixtureOrderBody, send, type HttpResult } from '@retry-safe/scenarios';
import { sleep } from '@retry-safe/testing';
import { newKey } from './client.js';

/** Tenant A's Authorization header. */
export const TENANT_A = { authorization: `Bearer ${DEMO_TENANTS.a.token}` } as const;
// What a careful client retries with the same key: a hop that got no answer (502/504), a 503, a lost connection.
const RETRIED_STATUSES = new Set([502, 503, 504]);

/** `POST /v1/orders` of tenant A on `gateway`; resolves to the new order's id. */
export async function newOrderId(gateway: string): Promise<string> {
  return createdOrderId(
    await send(`${gateway}/v1/orders`, {
      method: 'POST',
      headers: { ...TENANT_A, 'idempotency-key': newKey('order') },
      body: fixtureOrderBody(),
    }),
  );
}

/** `POST /v1/orders/{orderId}/payments` of tenant A, once. */
export function payOnce(gateway: string, orderId: string, key: string, amount = 1999): Promise<HttpResult> {
  return send(`${gateway}/v1/orders/${orderId}/payments`, {
    method: 'POST',
    headers: { ...TENANT_A, 'idempotency-key': key },
    body: { amount, currency: 'EUR' },
    timeoutMs: 20_000,
  });
}

/** {@link payOnce}, retried with the same key every second (at most `attempts`) while it gets no final answer. */
export async function payUntilAnswered(
  gateway: string,
  orderId: string,
  key: string,
  attempts = 60,
): Promise<HttpResult> {
  let last = 'no attempt';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await payOnce(gateway, orderId, key);
      if (!RETRIED_STATUSES.has(res.status)) return res;
      last = `${res.status} ${res.text.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(1_000);
  }
  throw new Error(`the payment got no final answer in ${attempts} attempts: ${last}`);
}
