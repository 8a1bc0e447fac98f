/**
 * Scenario 5 (issue 5): a payments process dies inside the action. The provider charged and holds its answer
 * (a `delay` after its handler); payments is SIGKILLed meanwhile and started again. Its reservation outlives it:
 * the client's retries (same key) get 409 `payment_in_progress` until the lease (`IDEMPOTENCY_LEASE_MS`) ends,
 * then one retry takes over and calls the provider again with the same provider key:
 *
 * | provider dedup | provider calls | charges | the final 201 carries            |
 * |----------------|----------------|---------|----------------------------------|
 * | on             | 2              | 1       | the charge the dead process made |
 * | off            | 2              | 2       | a second charge (the crash path's duplicate) |
 */
import { describe, expect } from '@jest/globals';
import { newKey, newOrder, pay, sendNow } from '../support/client.js';
import { itPerProviderDedup, useStack } from '../support/stack.js';
import { chargeIsHeld } from '../support/hold.js';

import { PAYMENTS_ROUTE, PROBLEM, ORDER_PAYMENTS_ROUTE, payUntilFinal } from './failure-helpers.js';

/**
 * Long enough to outlast the first call's failure and a payments restart on a loaded machine, so that the first
 * retry still finds the dead process's reservation: at 6 s, a run with two e2e workers on a slow two-core machine
 * had its first retry after the lease had ended (no 409 at all).
 */
const LEASE_MS = 10_000;
/** Longer than the test: the answer is never released, the process dies first. */
const PROVIDER_HOLD_MS = 60_000;

describe(`scenario 5: a payments process dies inside the action (IDEMPOTENCY_LEASE_MS=${LEASE_MS})`, () => {
  const suite = useStack(
    {
      payments: { IDEMPOTENCY_LEASE_MS: String(LEASE_MS) },
      provider: { PROVIDER_DEDUP: 'on' },
    },
    { resetEach: false },
  );

  itPerProviderDedup(
    suite,
    [
      { dedup: 'on', charges: 1, chargeOfTheDeadProcess: true },
      { dedup: 'off', charges: 2, chargeOfTheDeadProcess: false },
    ] as const,
    'provider dedup $dedup: 409 until the lease ends, then one retry runs; $charges provider charge(s)',
    async (stack, { charges, chargeOfTheDeadProcess }) => {
      await stack.setFaults('provider', [
        {
          method: 'POST',
          path: '/v1/charges',
          at: 'after-handler',
          action: 'delay',
          ms: PROVIDER_HOLD_MS,
          times: 1,
        },
      ]);
      const key = newKey();
      const orderId = await newOrder(stack);
      const [payments] = stack.processes('payments');
      if (payments === undefined) throw new Error('no payments process');

      const sentAt = Date.now();
      const pending = sendNow(pay(stack, { key, orderId, amount: 7300 }));
      await chargeIsHeld(stack);
      // The provider charged; payments is inside the action, waiting for the answer.
      expect((await stack.providerCharges()).charges).toHaveLength(1);
      await payments.kill('SIGKILL');

      // Orders retried into a dead port, then gave up, and the gateway passed its 502 (marked x-retry-exhausted)
      // up without retrying it again: one retrying layer. Payments stays down until this answer is in.
      const lost = await pending;
      expect(lost.status).toBe(502);
      expect(lost.headers['content-type']).toMatch(PROBLEM);
      expect(lost.body).toMatchObject({ status: 502, code: 'upstream_unavailable' });
      expect((await stack.faultCounts('orders'))[ORDER_PAYMENTS_ROUTE]).toBe(1);

      await payments.start();
      const attempts = await payUntilFinal(
        stack,
        { key, orderId, amount: 7300 },
        { timeoutMs: LEASE_MS + 20_000 },
      );

      const final = attempts.at(-1);
      const blocked = attempts.slice(0, -1);
      // The reservation of the dead process blocked the key for the rest of its lease...
      expect(blocked.length).toBeGreaterThan(0);
      for (const { res } of blocked) {
        expect(res.status).toBe(409);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body).toMatchObject({ status: 409, code: 'payment_in_progress' });
      }
      // ...and not a moment longer than that: the claim was made after `sentAt`, so it ran until at least then.
      expect(final?.sentAt).toBeGreaterThanOrEqual(sentAt + LEASE_MS);
      expect(final?.res.status).toBe(201);
      expect(final?.res.headers['idempotent-replayed']).toBeUndefined();
      expect(final?.res.body).toMatchObject({ orderId, amount: 7300, status: 'succeeded' });
      // The new process saw each retry once: 409s and the final 201 are never retried by the hops.
      expect((await stack.faultCounts('payments'))[PAYMENTS_ROUTE]).toBe(attempts.length);

      const ledger = await stack.providerCharges();
      expect(ledger.calls).toBe(2);
      expect(ledger.charges).toHaveLength(charges);
      expect(final?.res.body.providerChargeId).toBe(ledger.charges[chargeOfTheDeadProcess ? 0 : 1]?.id);
      // From now on the Charge is replayed.
      const replay = await pay(stack, { key, orderId, amount: 7300 });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(final?.res.text);
    },
  );
});
