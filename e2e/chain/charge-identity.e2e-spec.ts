/**
 * One identity per Charge (issue 14, item 6): a Charge whose completion was lost runs again on the client's retry,
 * and the provider answers that run with the charge it already made (the provider key is the same). The Charge id
 * is derived from the operation, the key and the provider's charge id, so both 201s carry one id. Before: a fresh
 * random id per execution, two ids for one provider charge.
 */
import { describe, expect, it } from '@jest/globals';
import { newKey, newOrder, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { healthy, paymentTraffic } from '../failures/failure-helpers.js';
import { recordKeyOf } from './chain-helpers.js';
import { useStack } from '../support/stack.js';
/** Long enough to stop Redis while the provider holds the charge. */
const HOLD_MS = 1_500;

describe('one identity per Charge', () => {
  // No persistence: the stopped Redis comes back empty, as after a lost completion nothing was stored.
  const stack = useStack({ provider: { PROVIDER_DEDUP: 'on' } });

  it('re-executed after a lost completion, the payment answers 201 with the same Charge id, 1 provider charge', async () => {
    const key = newKey();
    const orderId = await newOrder(stack());
    const record = recordKeyOf(key);
    await holdNextCharge(stack(), HOLD_MS);
    const pending = sendNow(pay(stack(), { key, orderId, amount: 8800 }));
    await chargeIsHeld(stack());
    // The claim is in Redis; the provider is charging. Redis goes away before the completion is written.
    expect(await stack().redisKeys(record)).toEqual([record]);
    await stack().redis.control!.stop();
    let first;
    try {
      first = await pending;
    } finally {
      await stack().redis.control!.start();
    }
    await healthy(stack(), 'payments');

    // The Charge is returned even though it could not be saved.
    expect(first.status).toBe(201);
    expect(await stack().redisKeys(record)).toEqual([]);

    const again = await pay(stack(), { key, orderId, amount: 8800 });

    expect(again.status).toBe(201);
    // Not a replay: the action ran again, and the provider answered with the charge it had made.
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.providerChargeId).toBe(first.body.providerChargeId);
    expect(again.body.id).toBe(first.body.id);
    expect(again.text).toBe(first.text);
    const ledger = await stack().providerCharges();
    expect(ledger.calls).toBe(2);
    expect(ledger.charges).toHaveLength(1);
    expect(await paymentTraffic(stack())).toEqual({ gateway: 2, orders: 2, payments: 2, provider: 2 });

    // From now on the Charge is stored and replayed, with the same id.
    const replay = await pay(stack(), { key, orderId, amount: 8800 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
  });
});
