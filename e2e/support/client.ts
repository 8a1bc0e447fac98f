import { expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DEMO_TENANTS, createdOrderId, fixtureOrderBody, type Stack } from '@retry-safe/scenarios';

/** What {@link pay} sends; everything has a sensible default. */
export interface PaymentCall {
  /** Demo tenant whose token is sent, or `null` for no Authorization header. @default 'a' */
  tenant?: keyof typeof DEMO_TENANTS | null;
  /** Raw Authorization header (overrides `tenant`). */
  authorization?: string;
  /** The order paid (see {@link newOrder}), used as it is. @default a new order of the tenant (A without one) */
  orderId?: string;
  /** Raw `Idempotency-Key` header value(s): `null` omits it, an array repeats the header. @default a new UUID */
  key?: string | readonly string[] | null;
  /** @default 1999 */
  amount?: number;
  /** @default 'EUR' */
  currency?: string;
  /** Raw body instead of `{amount, currency}`. */
  body?: string | object;
  /** @default 'application/json' */
  contentType?: string;
}

/** Creates an order of the tenant through the gateway (see `fixtureOrderBody`) and resolves to its id. */
export async function newOrder(
  stack: Stack,
  tenant: keyof typeof DEMO_TENANTS = 'a',
  currency = 'EUR',
): Promise<string> {
  const res = await request(stack.urls.gateway)
    .post('/v1/orders')
    .set('Authorization', `Bearer ${DEMO_TENANTS[tenant].token}`)
    .set('Idempotency-Key', newKey('order'))
    .send(fixtureOrderBody(currency));
  return createdOrderId(res);
}

/** `POST /v1/orders/{orderId}/payments` on the gateway, as a client would send it (its order created first). */
export async function pay(stack: Stack, call: PaymentCall = {}): Promise<request.Response> {
  const tenant = call.tenant === undefined ? 'a' : call.tenant;
  const orderId = call.orderId ?? (await newOrder(stack, tenant ?? 'a', call.currency));
  const test = request(stack.urls.gateway)
    .post(`/v1/orders/${orderId}/payments`)
    .set('Content-Type', call.contentType ?? 'application/json');
  if (call.authorization !== undefined) test.set('Authorization', call.authorization);
  else if (tenant !== null) test.set('Authorization', `Bearer ${DEMO_TENANTS[tenant].token}`);
  const key = call.key === undefined ? randomUUID() : call.key;
  if (key !== null) test.set('Idempotency-Key', key as string);
  const body = call.body ?? { amount: call.amount ?? 1999, currency: call.currency ?? 'EUR' };
  return test.send(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * `POST /v1/orders/{orderId}/payments` on the gateway with `fetch` (tenant A, EUR): for a test that hangs up on the
 * call (`signal`) or must see a refused connection as an error rather than a response.
 */
export function fetchPayment(
  gateway: string,
  orderId: string,
  key: string,
  amount: number,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${gateway}/v1/orders/${orderId}/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${DEMO_TENANTS.a.token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({ amount, currency: 'EUR' }),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Sends a request now, without awaiting it (a supertest Test is lazy: it only sends once awaited or `then`-ed). */
export function sendNow(test: PromiseLike<request.Response>): Promise<request.Response> {
  return Promise.resolve(test.then((res) => res));
}

/** A fresh, unique idempotency key (tests never share keys). */
export function newKey(label = 'key'): string {
  return `${label}-${randomUUID()}`;
}

/** `replay` is `original` replayed: 201, `Idempotent-Replayed: true`, and the same bytes. */
export function expectReplayOf(
  replay: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly text: string;
  },
  original: { readonly text: string },
): void {
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.text).toBe(original.text);
}
