import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Cluster, Redis } from 'ioredis';
import { IdempotencyErrorCode, jsonCodec, type CoordinateRequest } from '../../src/index.js';
import { countingAction, eventually, shardSubscribers, world, type World } from './support.js';

/**
 * Regression tests of issue 11 (lost replies aside, which need a proxy: lost-replies.spec.ts), on a standalone
 * server and on a 3-master Cluster.
 */
export function describeCoordinatorHardening(name: string, client: () => Redis | Cluster): void {
  describe(`coordinator hardening on ${name}`, () => {
    let w: World;
    beforeEach(() => {
      w = world(client());
    });
    afterEach(async () => {
      await w.close();
    });
    const recordKey = (key: string) => `${w.prefix}payment.charge.t1:${key}`;

    it('a result the codec cannot encode: the action runs once; every call gets IDEMPOTENCY_UNENCODABLE_RESULT', async () => {
      const coordinator = w.coordinator({ inFlight: 'raise' });
      let executions = 0;
      const request = { ...w.request('k-unencodable'), codec: jsonCodec<{ n: bigint }>() };
      const calls = [];
      for (let i = 0; i < 3; i++) {
        calls.push(
          await coordinator
            .coordinate(request as unknown as CoordinateRequest<{ n: bigint }>, async () => ({
              n: BigInt(++executions),
            }))
            .catch((e: unknown) => e),
        );
      }
      expect(executions).toBe(1);
      for (const error of calls) expect(error).toMatchObject({ code: 'IDEMPOTENCY_UNENCODABLE_RESULT' });
      expect((calls[0] as Error).cause).toBeInstanceOf(TypeError);
    });

    it('fencing tokens keep growing across the expiry of a result and of a released record', async () => {
      const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 1_000 });
      const ttl = { ttlMs: 1_000 };
      const first = await coordinator.coordinateWithOutcome(w.request('k-fence', ttl), countingAction().run);
      await eventually('the result expired', async () => (await client().exists(recordKey('k-fence'))) === 0);
      const failing = countingAction({ fail: true });
      await expect(coordinator.coordinate(w.request('k-fence', ttl), failing.run)).rejects.toThrow();
      await eventually(
        'the released record expired',
        async () => (await client().exists(recordKey('k-fence'))) === 0,
      );
      const third = await coordinator.coordinateWithOutcome(w.request('k-fence', ttl), countingAction().run);

      expect(failing.tokens[0]).toBeGreaterThan(first.fencingToken);
      expect(third.fencingToken).toBeGreaterThan(failing.tokens[0]!);
    });

    describe('the lease without renewal', () => {
      it("the signal aborts at the owner's lease deadline, before another owner takes over", async () => {
        const leaseMs = 300;
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs, renewLease: false });
        let signal: AbortSignal | undefined;
        let finish: () => void = () => {};
        const finished = new Promise<void>((resolve) => (finish = resolve));
        const first = coordinator
          .coordinate(w.request('k-deadline'), async (ctx) => {
            signal = ctx.signal;
            // An action that ignores its signal and goes on until another owner took over.
            await finished;
            return { id: 'ch_late', amount: 1, currency: 'EUR' };
          })
          .catch((e: unknown) => e);
        await eventually('the first action started', () => signal !== undefined);
        const other = w.coordinator({ inFlight: 'wait', waitTimeoutMs: 5_000 }, w.otherStore());
        let abortedAtTakeover: boolean | undefined;
        await other.coordinate(w.request('k-deadline'), async (ctx) => {
          abortedAtTakeover = signal?.aborted;
          return countingAction().run(ctx);
        });

        finish();
        expect(abortedAtTakeover).toBe(true);
        expect(await first).toMatchObject({
          code: IdempotencyErrorCode.LeaseLost,
          result: { id: 'ch_late' },
        });
      });

      it('an action that returns after its lease ran out gets IDEMPOTENCY_LEASE_LOST, and is not run again', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 200, renewLease: false });
        const slow = countingAction({ holdMs: 400 });
        await expect(coordinator.coordinate(w.request('k-late'), slow.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.LeaseLost,
          result: { id: 'ch_1' },
        });
        // Nobody took over: the result was still stored (owner-checked), so the retry replays it.
        await expect(coordinator.coordinateWithOutcome(w.request('k-late'), slow.run)).resolves.toMatchObject(
          {
            outcome: 'replayed',
            value: { id: 'ch_1' },
          },
        );
        expect(slow.executions).toBe(1);
      });
    });

    it('keys that are not well-formed UTF-16 are refused; two different strings never share a record', async () => {
      const coordinator = w.coordinator({ inFlight: 'raise' });
      const action = countingAction();
      for (const key of ['k\uD800', 'k\uDBFF', 'k\uDC00x']) {
        await expect(coordinator.coordinate(w.request(key), action.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.InvalidKey,
        });
      }
      await coordinator.coordinate(w.request('k\uFFFD'), action.run);
      await coordinator.coordinate(w.request('k\uD83D\uDE00'), action.run);
      expect(action.executions).toBe(2);
      expect((await w.keys()).sort()).toEqual([recordKey('k\uFFFD'), recordKey('k\uD83D\uDE00')].sort());
    });

    describe('wait mode subscriptions', () => {
      it('a second watcher of a channel whose subscribe is in flight still hears the completion', async () => {
        const store = w.otherStore();
        const id = { operation: 'payment.charge.t1', key: 'k-second-watcher' };
        const owner = { ...id, owner: 'owner-a' };
        await w.store.claim({ ...owner, fingerprint: 'fp-a', leaseMs: 10_000, retainMs: 60_000 });
        const heard: string[] = [];
        const firstWatch = store.watch!(id, () => heard.push('first'));
        const stopSecond = await store.watch!(id, () => heard.push('second'));
        // The second watch said it is subscribed: a completion from now on must reach it.
        await w.store.complete({ ...owner, payload: '{}', ttlMs: 60_000 });
        await eventually('the second watcher heard the completion', () => heard.includes('second'));
        await stopSecond();
        await (
          await firstWatch
        )();
      });

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
