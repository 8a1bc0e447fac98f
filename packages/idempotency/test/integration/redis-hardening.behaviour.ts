import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Cluster, Redis } from 'ioredis';
import { IdempotencyErrorCode } from '../../src/index.js';
import { countingAction, eventually, shardSubscribers, world, type World } from './support.js';

/**
 * Regression tests of issue 11 that only Redis has (its pub/sub and its record format), on a standalone server
 * and on a 3-master Cluster; the store-independent ones are coordinator-hardening.behaviour.ts.
 */
export function describeRedisHardening(name: string, client: () => Redis | Cluster): void {
  describe(`Redis hardening on ${name}`, () => {
    let w: World;
    beforeEach(() => {
      w = world(client());
    });
    afterEach(async () => {
      await w.close();
    });
    const recordKey = (key: string) => `${w.prefix}payment.charge.t1:${key}`;

    describe('wait mode subscriptions', () => {
      it('uses sharded pub/sub on the slot of the key, and unsubscribes when the last waiter leaves', async () => {
        const owner = w.coordinator({ inFlight: 'wait' });
        const waiter = w.coordinator({ inFlight: 'wait' }, w.otherStore());
        const action = countingAction({ holdMs: 5_000 });
        const first = owner.coordinate(w.request('k-sharded'), action.run);
        await eventually('the owner runs', () => action.executions === 1);
        const second = waiter.coordinateWithOutcome(w.request('k-sharded'), action.run);
        await eventually(
          'the waiter subscribed',
          async () => (await shardSubscribers(client(), recordKey('k-sharded'))) === 1,
        );
        action.release();

        await expect(second).resolves.toMatchObject({ outcome: 'replayed', value: { id: 'ch_1' } });
        await first;
        await eventually(
          'no subscription left',
          async () => (await shardSubscribers(client(), recordKey('k-sharded'))) === 0,
        );
      });
    });

    it.each([
      ['a fingerprint length past the end of the record', '1|c|5|||99|fp-a{}'],
      ['a fencing token beyond 2^53 (completed)', '1|c|100000000000000000000|||4|fp-a{}'],
      ['a fencing token beyond 2^53 (released)', '1|r|100000000000000000000|||0|'],
      ['a fencing token beyond 2^53 (pending, lease over)', '1|p|100000000000000000000|1|someone|4|fp-a'],
    ])(
      '%s: IDEMPOTENCY_CORRUPT_RECORD, the action does not run, the record stays as it was',
      async (_, raw) => {
        await client().set(recordKey('k-corrupt-edge'), raw);
        const action = countingAction();
        await expect(
          w.coordinator().coordinate(w.request('k-corrupt-edge'), action.run),
        ).rejects.toMatchObject({
          code: IdempotencyErrorCode.CorruptRecord,
        });
        expect(action.executions).toBe(0);
        expect(await client().get(recordKey('k-corrupt-edge'))).toBe(raw);
      },
    );
  });
}
