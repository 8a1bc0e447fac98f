/**
 * Scenario 1 (issue 5): the provider charged, but its response was lost (a `drop` after provider-sim's handler).
 * Payments' action fails, the coordinator releases the reservation, orders retries and payments calls the provider
 * again with the same provider key. Where the money is decided is the provider:
 *
 * | provider dedup (`PROVIDER_DEDUP`) | provider calls | charges | the client gets          |
 * |-----------------------------------|----------------|---------|--------------------------|
 * | off                               | 2              | 2       | the second charge        |
 * | on (by `payment.charge.<tenant>.<key>`) | 2        | 1       | the original charge      |
 */
import { describe, expect } from '@jest/globals';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { itPerProviderDedup, useStack } from '../support/stack.js';
import { DEMO_TENANTS } from '@retry-safe/scenarios';
import { metricSum, paymentTraffic } from './failure-helpers.js';

const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');

describe('scenario 1: the provider charged, but its response was lost', () => {
  const suite = useStack({ provider: { PROVIDER_DEDUP: 'off' } }, { resetEach: false });

  // Ordered so the first row runs on the stack as started.
  itPerProviderDedup(
    suite,
    [
      { dedup: 'off', charges: 2, original: false, gets: 'a second charge' },
      { dedup: 'on', charges: 1, original: true, gets: 'the original charge' },
    ] as const,
    'provider dedup $dedup: 2 provider calls, $charges charge(s); the client gets 201 with $gets',
    async (stack, { charges, original }) => {
      await stack.setFaults('provider', [
        { method: 'POST', path: '/v1/charges', at: 'after-handler', action: 'drop', times: 1 },
      ]);
      const events = (type: string) => metricSum(stack, 'payments', 'idempotency_events_total', { type });
      const [missesBefore, storeErrorsBefore] = [await events('miss'), await events('store_error')];
      const key = newKey();
      const orderId = await newOrder(stack);

      const res = await pay(stack, { key, orderId, amount: 3100, currency: 'EUR' });

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ orderId, amount: 3100, currency: 'EUR', status: 'succeeded' });
      // The lost answer failed the first payments attempt (502 to orders), which orders retried once.
      expect(await paymentTraffic(stack)).toEqual({ gateway: 1, orders: 1, payments: 2, provider: 2 });
      expect((await stack.faults('provider')).rules[0]?.fired).toBe(1);
      const ledger = await stack.providerCharges();
      expect(ledger.calls).toBe(2);
      expect(ledger.charges).toHaveLength(charges);
      for (const charge of ledger.charges) {
        expect(charge).toMatchObject({
          idempotencyKey: `payment.charge.${TENANT_A_HEX}.${key}`,
          amount: 3100,
          currency: 'EUR',
        });
      }
      // With dedup the retry got the charge made by the lost call; without it, a second one.
      expect(res.body.providerChargeId).toBe(ledger.charges[original ? 0 : 1]?.id);
      // One stored Charge either way (the failed attempt stored nothing), and no store trouble.
      expect((await events('miss')) - missesBefore).toBe(1);
      expect((await events('store_error')) - storeErrorsBefore).toBe(0);

      // From now on the stored Charge is replayed: no further provider call.
      const replay = await pay(stack, { key, orderId, amount: 3100, currency: 'EUR' });
      expectReplayOf(replay, res);
      expect((await stack.providerCharges()).calls).toBe(2);
    },
  );
});
