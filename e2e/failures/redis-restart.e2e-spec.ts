/**
 * Scenario 3 (issue 5): Redis restarts after a payment completed, and the client replays it.
 *
 * | Redis                                    | the record after the restart | the replay                    | charges          |
 * |------------------------------------------|------------------------------|-------------------------------|------------------|
 * | no persistence, provider dedup off       | gone                         | runs again, a new Charge      | 2                |
 * | no persistence, provider dedup on        | gone                         | runs again, the same Charge (id derived from the provider charge) | 1 |
 * | `appendonly yes`, `appendfsync always`   | kept                         | a hit: the same bytes         | 1                |
 *
 * `appendonly yes` + `appendfsync always` is what docker-compose runs. Services are not restarted: they reconnect.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { itPerProviderDedup, useStack } from '../support/stack.js';
import { DEMO_TENANTS, type Stack } from '@retry-safe/scenarios';
import { healthy, paymentTraffic } from './failure-helpers.js';

const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');

/** Pays, restarts Redis, waits for payments to reconnect, and replays the payment. */
async function payRestartReplay(
  stack: Stack,
): Promise<{ first: Response; replay: Response; record: string; keptRecord: boolean }> {
  await stack.reset();
  const key = newKey();
  const orderId = await newOrder(stack);
  const record = `idem:payment.charge.${TENANT_A_HEX}:${key}`;
  const first = await pay(stack, { key, orderId, amount: 5200 });
  expect(first.status).toBe(201);
  expect(await stack.redisKeys(record)).toEqual([record]);
  const pid = stack.processes('payments')[0]?.pid;

  await stack.redis.control!.restart();
  await healthy(stack, 'payments');
  expect(stack.processes('payments')[0]?.pid).toBe(pid);
  const keptRecord = (await stack.redisKeys(record)).length === 1;

  const replay = await pay(stack, { key, orderId, amount: 5200 });
  return { first, replay, record, keptRecord };
}

describe('scenario 3: Redis restarts', () => {
  describe('without persistence', () => {
    const suite = useStack({ provider: { PROVIDER_DEDUP: 'off' } }, { resetEach: false });

    itPerProviderDedup(
      suite,
      [
        { dedup: 'off', charges: 2 },
        { dedup: 'on', charges: 1 },
      ] as const,
      'provider dedup $dedup: the record is gone, the replay runs again; $charges provider charge(s)',
      async (stack, { dedup, charges }) => {
        const { first, replay, record, keptRecord } = await payRestartReplay(stack);

        expect(keptRecord).toBe(false);
        expect(replay.status).toBe(201);
        expect(replay.headers['idempotent-replayed']).toBeUndefined();
        // The Charge id is derived from the key and the provider charge: one provider charge, one id.
        if (dedup === 'on') expect(replay.body.id).toBe(first.body.id);
        else expect(replay.body.id).not.toBe(first.body.id);
        expect(await paymentTraffic(stack)).toEqual({ gateway: 2, orders: 2, payments: 2, provider: 2 });
        const ledger = await stack.providerCharges();
        expect(ledger.charges).toHaveLength(charges);
        if (dedup === 'on') {
          // The provider kept the money safe: the replay got the charge made the first time.
          expect(replay.body.providerChargeId).toBe(first.body.providerChargeId);
        } else {
          expect(replay.body.providerChargeId).not.toBe(first.body.providerChargeId);
        }
        expect(await stack.redisKeys(record)).toEqual([record]);
      },
    );
  });

  describe('with appendonly yes and appendfsync always', () => {
    const suite = useStack(
      { redis: { appendOnly: true }, provider: { PROVIDER_DEDUP: 'off' } },
      { resetEach: false },
    );

    it('the record survives; the replay is a hit with the same bytes; 1 provider charge (even with dedup off)', async () => {
      const stack = suite();
      const { first, replay, keptRecord } = await payRestartReplay(stack);

      expect(keptRecord).toBe(true);
      expectReplayOf(replay, first);
      expect(await paymentTraffic(stack)).toEqual({ gateway: 2, orders: 2, payments: 2, provider: 1 });
      expect((await stack.providerCharges()).charges).toHaveLength(1);
    });
  });
});
