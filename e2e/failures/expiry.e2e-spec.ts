/**
 * Scenario 4 (issue 5): the record expired. Payments keeps a Charge for `IDEMPOTENCY_TTL_MS`, here 1.5 s: exact
 * to the millisecond (Redis `PX`), not rounded to a minute. A replay within it is a hit; once the record is gone
 * the replay runs the action again, and only provider dedup stands between it and a second charge:
 *
 * | provider dedup | replay within the TTL | replay after it           | charges |
 * |----------------|-----------------------|---------------------------|---------|
 * | on             | hit, same bytes       | runs, same provider charge and Charge id | 1 |
 * | off            | hit, same bytes       | runs, a second charge      | 2       |
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import type { Redis } from 'ioredis';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { itPerProviderDedup, useStack } from '../support/stack.js';
import { DEMO_TENANTS } from '@retry-safe/scenarios';
import { paymentTraffic } from './failure-helpers.js';

const TTL_MS = 1_500;
/** How late Redis may be to remove an expired key we keep asking about (it expires keys on access). */
const EXPIRY_SLACK_MS = 500;
const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');

describe(`scenario 4: the record expired (IDEMPOTENCY_TTL_MS=${TTL_MS})`, () => {
  let redis: Redis;
  const suite = useStack(
    {
      payments: { IDEMPOTENCY_TTL_MS: String(TTL_MS) },
      provider: { PROVIDER_DEDUP: 'on' },
    },
    { resetEach: false },
  );

  beforeAll(() => {
    redis = suite().redis.client();
  });
  afterAll(() => {
    redis?.disconnect();
  });

  itPerProviderDedup(
    suite,
    [
      { dedup: 'on', charges: 1, sameProviderCharge: true },
      { dedup: 'off', charges: 2, sameProviderCharge: false },
    ] as const,
    'provider dedup $dedup: a hit within the TTL, a new execution after it; $charges provider charge(s)',
    async (stack, { charges, sameProviderCharge }) => {
      const key = newKey();
      const orderId = await newOrder(stack);
      const record = `idem:payment.charge.${TENANT_A_HEX}:${key}`;

      const sentAt = Date.now();
      const first = await pay(stack, { key, orderId, amount: 6100 });
      const answeredAt = Date.now();
      expect(first.status).toBe(201);
      // The TTL is the one configured, to the millisecond: at most 1500 ms left, not a minute.
      const pttl = await redis.pttl(record);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(TTL_MS);

      const within = await pay(stack, { key, orderId, amount: 6100 });
      expectReplayOf(within, first);

      // The record was completed after the request was sent and before it was answered, so it expires in that
      // window shifted by the TTL (EXISTS makes Redis drop an expired key at once).
      await waitFor('the record to expire', async () => {
        if ((await redis.exists(record)) === 1) throw new Error('still there');
      });
      const goneAt = Date.now();
      expect(goneAt).toBeGreaterThanOrEqual(sentAt + TTL_MS);
      expect(goneAt).toBeLessThanOrEqual(answeredAt + TTL_MS + EXPIRY_SLACK_MS);

      const after = await pay(stack, { key, orderId, amount: 6100 });
      expect(after.status).toBe(201);
      expect(after.headers['idempotent-replayed']).toBeUndefined();
      // The Charge id is derived from the key and the provider charge: the same provider charge, the same id.
      expect(after.body.id === first.body.id).toBe(sameProviderCharge);
      expect(after.body.providerChargeId === first.body.providerChargeId).toBe(sameProviderCharge);
      expect(await paymentTraffic(stack)).toEqual({ gateway: 3, orders: 3, payments: 3, provider: 2 });
      const ledger = await stack.providerCharges();
      expect(ledger.calls).toBe(2);
      expect(ledger.charges).toHaveLength(charges);
    },
  );
});
