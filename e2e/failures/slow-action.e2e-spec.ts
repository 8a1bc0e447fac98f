/**
 * Scenario 6 (issue 5): the action outlives its lease. The provider holds the first charge for 3.5 s; the lease
 * is 1 s (`IDEMPOTENCY_LEASE_MS`); duplicates arrive after the lease would have run out. Provider dedup is off, so
 * every charge the coordinator lets through is counted.
 *
 * | `IDEMPOTENCY_RENEW_LEASE` | a duplicate after 1 s            | the slow first request gets          | charges |
 * |---------------------------|----------------------------------|--------------------------------------|---------|
 * | false                     | takes over, runs, 201            | 409 `idempotency_lease_lost` (fenced) | 2       |
 * | true                      | 409 `payment_in_progress` throughout | 201                              | 1       |
 *
 * Fencing: without renewal the stale owner still finishes its provider call, but its completion is refused (its
 * owner token no longer matches), so the newer owner's Charge is the one replayed, and payments counts a
 * `lease_lost` event.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sleep } from '@retry-safe/testing';
import { expectReplayOf, newKey, newOrder, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { startStack, type Stack } from '@retry-safe/scenarios';
import { PROBLEM, metricSum, paymentTraffic } from './failure-helpers.js';

const LEASE_MS = 1_000;
const HOLD_MS = 3_500;
/** Past the end of a lease, measured from a moment after the claim: the lease has certainly run out by then. */
const PAST_LEASE_MS = LEASE_MS + 200;

describe(`scenario 6: the action outlives its lease (IDEMPOTENCY_LEASE_MS=${LEASE_MS}, provider holds ${HOLD_MS} ms)`, () => {
  let stack: Stack;
  const events = (type: string) => metricSum(stack, 'payments', 'idempotency_events_total', { type });

  beforeAll(async () => {
    stack = await startStack({
      payments: { IDEMPOTENCY_LEASE_MS: String(LEASE_MS), IDEMPOTENCY_RENEW_LEASE: 'false' },
      provider: { PROVIDER_DEDUP: 'off' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** A payment whose provider call is held for HOLD_MS, sent and seen held, with the lease counters before it. */
  async function startSlowPayment() {
    await stack.reset();
    await holdNextCharge(stack, HOLD_MS);
    const [lostBefore, renewedBefore] = [await events('lease_lost'), await events('lease_renewed')];
    const key = newKey();
    const orderId = await newOrder(stack);
    const slow = sendNow(pay(stack, { key, orderId, amount: 8800 }));
    await chargeIsHeld(stack);
    return { key, orderId, slow, lostBefore, renewedBefore };
  }

  it('renewal off: a duplicate runs beside the slow one (2 charges); the stale owner is fenced off with 409 idempotency_lease_lost', async () => {
    const { key, orderId, slow, lostBefore, renewedBefore } = await startSlowPayment();
    // The claim came before the hold, so its lease has run out after this.
    await sleep(PAST_LEASE_MS);
    const duplicate = await pay(stack, { key, orderId, amount: 8800 });
    const stale = await slow;

    expect(duplicate.status).toBe(201);
    expect(duplicate.headers['idempotent-replayed']).toBeUndefined();
    expect(stale.status).toBe(409);
    expect(stale.headers['content-type']).toMatch(PROBLEM);
    expect(stale.body).toMatchObject({ status: 409, code: 'idempotency_lease_lost' });
    expect((await events('lease_lost')) - lostBefore).toBe(1);
    expect((await events('lease_renewed')) - renewedBefore).toBe(0);
    // The record is the duplicate's: the stale owner's completion never overwrote it.
    const replay = await pay(stack, { key, orderId, amount: 8800 });
    expectReplayOf(replay, duplicate);
    const ledger = await stack.providerCharges();
    expect(ledger.calls).toBe(2);
    expect(ledger.charges).toHaveLength(2);
    expect(ledger.charges.map((charge) => charge.id)).toContain(duplicate.body.providerChargeId);
    expect(await paymentTraffic(stack)).toEqual({ gateway: 3, orders: 3, payments: 3, provider: 2 });
  });

  it('renewal on: duplicates get 409 payment_in_progress throughout the slow call; 1 charge', async () => {
    await stack.restart('payments', { IDEMPOTENCY_RENEW_LEASE: 'true' });
    const { key, orderId, slow, lostBefore, renewedBefore } = await startSlowPayment();
    const heldAt = Date.now();
    // One duplicate after the first lease would have ended, one after the second: both before the hold ends.
    await sleep(PAST_LEASE_MS);
    const early = await pay(stack, { key, orderId, amount: 8800 });
    await sleep(heldAt + LEASE_MS + PAST_LEASE_MS - Date.now());
    const late = await pay(stack, { key, orderId, amount: 8800 });
    const first = await slow;

    for (const duplicate of [early, late]) {
      expect(duplicate.status).toBe(409);
      expect(duplicate.headers['retry-after']).toBe('1');
      expect(duplicate.body).toMatchObject({ status: 409, code: 'payment_in_progress' });
    }
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Renewed every lease / 3 while the provider held the call.
    expect((await events('lease_renewed')) - renewedBefore).toBeGreaterThanOrEqual(
      Math.floor(HOLD_MS / LEASE_MS),
    );
    expect((await events('lease_lost')) - lostBefore).toBe(0);
    const ledger = await stack.providerCharges();
    expect(ledger.calls).toBe(1);
    expect(ledger.charges).toEqual([expect.objectContaining({ id: first.body.providerChargeId })]);
    expect(await paymentTraffic(stack)).toEqual({ gateway: 3, orders: 3, payments: 3, provider: 1 });
  });
});
