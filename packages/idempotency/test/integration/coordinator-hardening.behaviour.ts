import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { IdempotencyErrorCode, jsonCodec, type CoordinateRequest } from '../../src/index.js';
import { countingAction, eventually, type BehaviourBackend, type StoreWorld } from './support.js';

/**
 * Regression tests of issue 11 that hold for every store (Redis' own: redis-hardening.behaviour.ts; lost replies:
 * lost-replies.behaviour.ts): run on a standalone Redis, a 3-master Cluster, PostgreSQL and the in-memory store.
 */
export function describeCoordinatorHardening(name: string, backend: BehaviourBackend): void {
  describe(`coordinator hardening on ${name}`, () => {
    let w: StoreWorld;
    beforeEach(async () => {
      w = await backend.world();
    });
    afterEach(async () => {
      await w.close();
    });
    const record = (key: string) => `payment.charge.t1:${key}`;

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
      await eventually('the result expired', async () => (await w.records()).length === 0);
      const failing = countingAction({ fail: true });
      await expect(coordinator.coordinate(w.request('k-fence', ttl), failing.run)).rejects.toThrow();
      await eventually('the released record expired', async () => (await w.records()).length === 0);
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
      expect((await w.records()).sort()).toEqual([record('k\uFFFD'), record('k\uD83D\uDE00')].sort());
    });

    describe('wait mode', () => {
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
    });
  });
}
