/**
 * Timeouts shrink along the chain, and a caller that leaves cancels the work below it (issue 14, item 5).
 *
 * - Each attempt propagates its own end less a margin as `x-request-deadline`, so the innermost hop times out
 *   first and its 504 reaches the client: with a 1.5 s gateway deadline and payments holding its answer, the
 *   client's 504 names payments (orders' attempt ended first), not orders.
 * - A client that disconnects aborts the gateway's call to orders, which aborts orders' call to payments: payments
 *   sees its caller close the connection long before the provider's held answer, and nobody retries.
 * - Payments never abandons a provider call that started: its caller gone, the charge completes and is stored,
 *   and the client's retry with the same key gets it replayed.
 *
 * The provider holds the charge, so that payments is inside its handler (and journals its caller leaving).
 */
import { describe, expect, it } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import { fetchPayment, newKey, newOrder, pay } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import type { Stack } from '@retry-safe/scenarios';
import { PROBLEM, paymentTraffic } from '../failures/failure-helpers.js';
import { journalOf, stored } from './chain-helpers.js';
import { useStack } from '../support/stack.js';

const GATEWAY_DEADLINE_MS = 1_500;
/** How long the provider holds the charge: longer than the gateway's deadline. */
const HOLD_MS = 3_000;

/** Starts a payment with `fetch`, so the test can hang up on it. */
function payAndHangUp(
  stack: Stack,
  key: string,
  orderId: string,
): { hangUp: () => void; done: Promise<unknown> } {
  const controller = new AbortController();
  const done = fetchPayment(stack.urls.gateway, orderId, key, 5100, controller.signal).catch(
    (error: unknown) => error,
  );
  return { hangUp: () => controller.abort(), done };
}

/** Resolves once `service`'s journal holds an entry for `key` that has ended. */
function ended(baseUrl: string, key: string) {
  return waitFor(`a finished request with key ${key} at ${baseUrl}`, async () => {
    const [entry] = await journalOf(baseUrl, key);
    if (entry === undefined) throw new Error('no entry yet');
    return entry;
  });
}

describe('deadlines and cancellation along the chain', () => {
  const stack = useStack({ gateway: { GATEWAY_DEADLINE_MS: String(GATEWAY_DEADLINE_MS) } });

  it('a client that hangs up aborts orders and, through it, payments; payments still finishes the provider charge', async () => {
    await holdNextCharge(stack(), HOLD_MS);
    const key = newKey();
    const orderId = await newOrder(stack());
    const { hangUp, done } = payAndHangUp(stack(), key, orderId);
    await chargeIsHeld(stack());

    hangUp();
    await done;

    const atOrders = await ended(stack().urls.orders, key);
    const atPayments = await ended(stack().urls.payments, key);
    // Each hop's caller closed the connection: no answer was sent, and well before the held one was due.
    expect(atOrders.status).toBe('aborted');
    expect(atPayments.status).toBe('aborted');
    expect(atPayments.endedAt - atPayments.startedAt).toBeLessThan(HOLD_MS);
    // The provider call is not abandoned: the Charge is stored once the provider answers.
    await stored(stack(), key, HOLD_MS + 5_000);
    // One request per hop: an aborted call is not retried.
    expect(await paymentTraffic(stack())).toEqual({ gateway: 1, orders: 1, payments: 1, provider: 1 });

    const retry = await pay(stack(), { key, orderId, amount: 5100 });

    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const ledger = await stack().providerCharges();
    expect(ledger.calls).toBe(1);
    expect(ledger.charges).toEqual([expect.objectContaining({ id: retry.body.providerChargeId })]);
  });

  it(`the innermost hop times out first: with a ${GATEWAY_DEADLINE_MS} ms deadline the client's 504 comes from orders, naming payments`, async () => {
    await holdNextCharge(stack(), HOLD_MS);
    const key = newKey();

    const res = await pay(stack(), { key });

    expect(res.status).toBe(504);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    // Orders' attempt ended 100 ms (the margin) before the gateway's: its 504 is the one the client got.
    expect(res.body).toMatchObject({
      status: 504,
      code: 'upstream_timeout',
      detail: 'The payments service did not answer in time',
    });
    // Orders' timeout closed its connection to payments: payments' caller left before the deadline...
    const atPayments = await ended(stack().urls.payments, key);
    expect(atPayments.status).toBe('aborted');
    expect(atPayments.endedAt - atPayments.startedAt).toBeLessThan(GATEWAY_DEADLINE_MS);
    // Orders timed out with no time left for another attempt; the gateway relayed its (marked) 504. Read once
    // payments has seen its caller leave: it counts an aborted request when the connection closes, which can come
    // after the client's 504 (the close travels one hop down while the 504 travels two up).
    expect(await paymentTraffic(stack())).toMatchObject({ gateway: 1, orders: 1, payments: 1 });
    // ...and payments finished the charge it had started all the same.
    await stored(stack(), key, HOLD_MS + 5_000);
  });
});
