/**
 * An honest replay marker (issue 38, item 4): `Idempotent-Replayed: true` tells the client that the answer was
 * stored before its request reached the hop that says so, never that a hop below replayed it to a retry of that
 * hop's own. Here payments' answer to orders is lost once: orders retries inside the chain and payments replays the
 * Charge its first attempt stored. That is still the client's first payment, so it reaches the client unmarked;
 * the client's own retry of the key is the replay. Before the fix, orders relayed payments' marker as it came and
 * the first payment reached the client marked `true`.
 *
 * Counted from what the services saw (their journals and request counters), the provider's ledger and the order.
 */
import { describe, expect, it } from '@jest/globals';
import { idempotencyKeyDigest } from '@retry-safe/contracts';
import { DEMO_TENANTS, LOSE_ANSWER_ONCE, type Stack } from '@retry-safe/scenarios';
import request from 'supertest';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { useStack } from '../support/stack.js';
import { paymentTraffic } from '../failures/failure-helpers.js';

/** What a hop's journal says of each request with `key`, in arrival order: its status and its marker. */
async function answersAt(baseUrl: string, key: string): Promise<Array<[number | 'aborted', boolean]>> {
  const res = await fetch(`${baseUrl}/__requests`);
  const { requests } = (await res.json()) as {
    requests: Array<{ idempotencyKeyDigest?: string; status: number | 'aborted'; replayed: boolean }>;
  };
  const digest = idempotencyKeyDigest(key);
  return requests
    .filter((entry) => entry.idempotencyKeyDigest === digest)
    .map((entry) => [entry.status, entry.replayed]);
}

/** The order as the client reads it through the gateway. */
async function readOrder(stack: Stack, orderId: string): Promise<Record<string, unknown>> {
  const res = await request(stack.urls.gateway)
    .get(`/v1/orders/${orderId}`)
    .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`);
  return res.body as Record<string, unknown>;
}

describe('the replay marker along the chain', () => {
  const stack = useStack();

  it("a first payment retried inside the chain reaches the client unmarked; the client's retry is marked, same bytes, one charge", async () => {
    const key = newKey('marker');
    const orderId = await newOrder(stack());
    await stack().setFaults('payments', [LOSE_ANSWER_ONCE.payments]);

    const first = await pay(stack(), { key, orderId, amount: 3100 });

    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ orderId, amount: 3100, currency: 'EUR', status: 'succeeded' });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The path under test: payments' first answer was lost after it charged, and orders' retry got the stored
    // Charge back as a replay; orders' answer (the one the gateway relayed) says nothing of that replay.
    expect(await answersAt(stack().urls.payments, key)).toEqual([
      ['aborted', false],
      [201, true],
    ]);
    expect(await answersAt(stack().urls.orders, key)).toEqual([[201, false]]);
    expect((await stack().faults('payments')).rules[0]?.fired).toBe(1);
    expect(await paymentTraffic(stack())).toEqual({ gateway: 1, orders: 1, payments: 2, provider: 1 });
    const charged = await stack().providerCharges();
    expect(charged.charges).toEqual([expect.objectContaining({ id: first.body.providerChargeId })]);
    expect(await readOrder(stack(), orderId)).toMatchObject({
      paidAmount: 3100,
      payments: [expect.objectContaining({ chargeId: first.body.id })],
    });

    const retry = await pay(stack(), { key, orderId, amount: 3100 });

    // The client's own retry: the Charge was stored before it arrived, so it is the replay, byte for byte.
    expectReplayOf(retry, first);
    expect(await answersAt(stack().urls.orders, key)).toEqual([
      [201, false],
      [201, true],
    ]);
    expect(await paymentTraffic(stack())).toEqual({ gateway: 2, orders: 2, payments: 3, provider: 1 });
    const after = await stack().providerCharges();
    expect([after.calls, after.charges.length]).toEqual([1, 1]);
    expect(await readOrder(stack(), orderId)).toMatchObject({
      paidAmount: 3100,
      payments: [expect.objectContaining({ chargeId: first.body.id })],
    });
  });
});
