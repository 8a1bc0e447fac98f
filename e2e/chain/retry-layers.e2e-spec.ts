/**
 * One retrying layer (issue 14, item 1): with Redis refusing connections, payments answers 503
 * `idempotency_store_unavailable`; orders retries it (its 3 retries, within its retry budget) and passes the last
 * one up marked `x-retry-exhausted`; the gateway relays it without retrying. Before: the gateway retried orders'
 * 503 too, so one client payment reached payments (1 + 3) x (1 + 3) = 16 times, the client's 503 after ~9 s.
 *
 * The time to the client's 503 also depends on the store failing fast while Redis is known to be down
 * (item 2): every payments attempt then answers at once, and the 503 arrives within 2.5 s.
 */
import { describe, expect, it } from '@jest/globals';
import { newKey, newOrder, pay } from '../support/client.js';
import { useStack } from '../support/stack.js';
import { PROBLEM, healthy, paymentTraffic } from '../failures/failure-helpers.js';

/** orders' `UPSTREAM_RETRIES` default: the only layer that retries payments' 503. */
const ORDERS_RETRIES = 3;
/** The goal of issue 14 for the client's 503 with Redis refusing connections. */
const CLIENT_503_WITHIN_MS = 2_500;

describe('one retrying layer: Redis refusing connections', () => {
  const stack = useStack();

  it(`the client gets 503 idempotency_store_unavailable with Retry-After; payments saw ${1 + ORDERS_RETRIES} attempts, orders 1, and the 503 came within ${CLIENT_503_WITHIN_MS} ms`, async () => {
    const key = newKey();
    const orderId = await newOrder(stack());
    await stack().redis.control!.stop();
    let res;
    let elapsedMs: number;
    try {
      const sentAt = Date.now();
      res = await pay(stack(), { key, orderId, amount: 2100 });
      elapsedMs = Date.now() - sentAt;
    } finally {
      await stack().redis.control!.start();
    }

    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ status: 503, code: 'idempotency_store_unavailable' });
    expect(await paymentTraffic(stack())).toEqual({
      gateway: 1,
      orders: 1,
      payments: 1 + ORDERS_RETRIES,
      provider: 0,
    });
    console.log(`client 503 after ${elapsedMs} ms; payments attempts: ${1 + ORDERS_RETRIES}`);
    expect(elapsedMs).toBeLessThan(CLIENT_503_WITHIN_MS);

    // Back up: the same key charges once.
    await healthy(stack(), 'payments');
    const paid = await pay(stack(), { key, orderId, amount: 2100 });
    expect(paid.status).toBe(201);
    expect((await stack().providerCharges()).charges).toHaveLength(1);
  });
});
