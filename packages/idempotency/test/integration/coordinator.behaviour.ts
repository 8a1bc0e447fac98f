import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor, whenAborted } from '@retry-safe/testing';
import {
  IdempotencyErrorCode,
  InFlightMode,
  type CoordinatedResult,
  type IdempotencyStore,
} from '../../src/index.js';
import {
  countingAction,
  countingStore,
  sleep,
  type BehaviourBackend,
  type Charge,
  type StoreWorld,
} from './support.js';

async function settle<T>(promises: Promise<T>[]) {
  const results = await Promise.allSettled(promises);
  return {
    values: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
    codes: results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code?: string }).code] : [])),
  };
}

/**
 * The coordinator's behaviour on a real store; run against a standalone Redis, a 3-master Cluster (which proves
 * every script keeps to one hash slot) and PostgreSQL (which proves the SQL functions keep the same contract).
 */
export function describeCoordinatorBehaviour(name: string, backend: BehaviourBackend): void {
  describe(`coordinator on ${name}`, () => {
    let w: StoreWorld;
    beforeEach(async () => {
      w = await backend.world();
    });
    afterEach(async () => {
      await w.close();
    });

    describe('one key, 100 concurrent calls', () => {
      it('raise: the action runs exactly once; the others get the result or IDEMPOTENCY_IN_PROGRESS', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise' });
        const action = countingAction({ holdMs: 50 });
        const calls = Array.from({ length: 100 }, () =>
          coordinator.coordinate(w.request('k-raise'), action.run),
        );
        const { values, codes } = await settle(calls);

        expect(action.executions).toBe(1);
        expect(values.length + codes.length).toBe(100);
        expect(new Set(codes)).toEqual(new Set([IdempotencyErrorCode.InProgress]));
        for (const value of values) expect(value).toEqual({ id: 'ch_1', amount: 1000, currency: 'EUR' });
        // Once it finished, every repeat replays the one stored result.
        await expect(coordinator.coordinate(w.request('k-raise'), action.run)).resolves.toEqual(values[0]);
        expect(action.executions).toBe(1);
      });

      it('wait: the action runs exactly once and all 100 get the identical result', async () => {
        const coordinators = [
          w.coordinator({ inFlight: 'wait' }),
          w.coordinator({ inFlight: 'wait' }, w.otherStore()),
        ];
        const action = countingAction({ holdMs: 10_000 });
        const calls = Array.from({ length: 100 }, (_, i) =>
          coordinators[i % 2]!.coordinateWithOutcome(w.request('k-wait'), action.run),
        );
        // The owner finishes only once the 99 others found the key held: with a fixed hold, a loaded machine sent
        // some claims after the result was stored, and those replayed without waiting (95 of 99 waited, seen).
        await waitFor('99 calls to find the key in progress', async () => {
          const seen = w.events.filter((e) => e.type === 'in_progress').length;
          if (seen < 99) throw new Error(`${seen} so far`);
        });
        action.release();
        const { values, codes } = await settle(calls);

        expect(codes).toEqual([]);
        expect(action.executions).toBe(1);
        expect(values).toHaveLength(100);
        expect(new Set(values.map((v) => JSON.stringify(v.value)))).toEqual(
          new Set([JSON.stringify({ id: 'ch_1', amount: 1000, currency: 'EUR' })]),
        );
        expect(values.filter((v) => v.outcome === 'executed')).toHaveLength(1);
        expect(values.filter((v) => v.outcome === 'replayed')).toHaveLength(99);
        expect(w.events.filter((e) => e.type === 'waited')).toHaveLength(99);
      });
    });

    describe('fingerprints', () => {
      it('refuses a key reused with other parameters while the first is pending, without running it', async () => {
        const coordinator = w.coordinator({ inFlight: 'wait' });
        const action = countingAction({ holdMs: 2_000 });
        const first = coordinator.coordinate(w.request('k-fp'), action.run);
        await waitUntil(() => action.executions === 1);
        const other = countingAction();

        const error = await coordinator
          .coordinate(w.request('k-fp', { fingerprint: 'fp-b' }), other.run)
          .catch((e: unknown) => e);

        expect(error).toMatchObject({
          code: IdempotencyErrorCode.KeyReuse,
          operation: 'payment.charge.t1',
          key: 'k-fp',
          storedFingerprint: 'fp-a',
          requestFingerprint: 'fp-b',
        });
        expect(other.executions).toBe(0);
        action.release();
        await first;
      });

      it('refuses a key reused with other parameters after completion, and still replays the original', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise' });
        const action = countingAction();
        await coordinator.coordinate(w.request('k-fp2'), action.run);

        await expect(
          coordinator.coordinate(w.request('k-fp2', { fingerprint: 'fp-b' }), action.run),
        ).rejects.toMatchObject({ code: IdempotencyErrorCode.KeyReuse });
        await expect(coordinator.coordinate(w.request('k-fp2'), action.run)).resolves.toMatchObject({
          id: 'ch_1',
        });
        expect(action.executions).toBe(1);
        expect(w.events.map((e) => e.type)).toEqual(['miss', 'key_reuse', 'hit']);
      });
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['with a colon', 'order:42'],
      ['256 characters', 'k'.repeat(256)],
      ['with a control character', 'abc\u0007def'],
      ['with a newline', 'abc\ndef'],
    ])(
      'rejects a key %s before touching Redis: the action never runs and nothing is written',
      async (_, key) => {
        const store = countingStore(w.store);
        const coordinator = w.coordinator({}, store);
        const action = countingAction();

        await expect(coordinator.coordinate(w.request(key), action.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.InvalidKey,
          key,
        });
        expect(action.executions).toBe(0);
        expect(store.calls).toEqual({});
        expect(await w.records()).toEqual([]);
      },
    );

    it('accepts a key of exactly 255 characters', async () => {
      const action = countingAction();
      await w.coordinator().coordinate(w.request('k'.repeat(255)), action.run);
      expect(action.executions).toBe(1);
    });

    it('releases the reservation when the action throws, so the next call runs again with a higher fencing token', async () => {
      const coordinator = w.coordinator({ inFlight: 'raise' });
      const failing = countingAction({ fail: true });
      await expect(coordinator.coordinate(w.request('k-fail'), failing.run)).rejects.toThrow(
        'provider failed',
      );
      await expect(coordinator.coordinate(w.request('k-fail'), failing.run)).rejects.toThrow(
        'provider failed',
      );
      const succeeding = countingAction();
      const result = await coordinator.coordinateWithOutcome(w.request('k-fail'), succeeding.run);
      const replay = await coordinator.coordinateWithOutcome(w.request('k-fail'), succeeding.run);

      expect(failing.executions).toBe(2);
      expect(succeeding.executions).toBe(1);
      // Fencing tokens start from the Redis clock (they must outgrow any token of an expired record): compared
      // with the first, they grow by one per owner.
      const t = failing.tokens[0]!;
      expect([...failing.tokens, ...succeeding.tokens]).toEqual([t, t + 1, t + 2]);
      expect(result).toMatchObject({ outcome: 'executed', fencingToken: t + 2 });
      expect(replay).toEqual({ ...result, outcome: 'replayed' });
    });

    describe('lease', () => {
      /** A 300 ms reservation whose owner "crashes" at once: it never completes, renews or releases. */
      const claimByDeadOwner = (key: string) =>
        w.store.claim({
          operation: 'payment.charge.t1',
          key,
          owner: 'dead-owner',
          fingerprint: 'fp-a',
          leaseMs: 300,
          retainMs: 60_000,
        });

      it('renewal on: an action 4x longer than the lease keeps its key; a duplicate mid-way gets in-progress', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 200, renewLease: true });
        const action = countingAction({ holdMs: 800 });
        const first = coordinator.coordinate(w.request('k-renew'), action.run);
        await sleep(500);

        await expect(coordinator.coordinate(w.request('k-renew'), action.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.InProgress,
        });
        await expect(first).resolves.toMatchObject({ id: 'ch_1' });
        expect(action.executions).toBe(1);
        expect(w.events.filter((e) => e.type === 'lease_renewed').length).toBeGreaterThanOrEqual(3);
      });

      it('renewal off: the duplicate runs (the hazard), the stale owner gets IDEMPOTENCY_LEASE_LOST, the second result stays', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 200, renewLease: false });
        const slow = countingAction({ holdMs: 800 });
        const first = coordinator.coordinate(w.request('k-stale'), slow.run).catch((e: unknown) => e);
        await sleep(400);
        const fast = countingAction();
        const second = await coordinator.coordinate(w.request('k-stale'), async (ctx) => ({
          ...(await fast.run(ctx)),
          id: 'ch_second',
        }));

        const error = await first;
        expect(slow.executions + fast.executions).toBe(2);
        expect(second).toMatchObject({ id: 'ch_second' });
        expect(error).toMatchObject({ code: IdempotencyErrorCode.LeaseLost, result: { id: 'ch_1' } });
        expect(slow.tokens).toHaveLength(1);
        expect(fast.tokens).toEqual([slow.tokens[0]! + 1]);
        await expect(coordinator.coordinate(w.request('k-stale'), slow.run)).resolves.toMatchObject({
          id: 'ch_second',
        });
      });

      it("a stale owner's failure does not release the new owner's reservation", async () => {
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 200, renewLease: false });
        const stale = countingAction({ holdMs: 500, fail: true });
        const first = coordinator.coordinate(w.request('k-stale-fail'), stale.run).catch((e: unknown) => e);
        await sleep(300);
        const fresh = countingAction({ holdMs: 5_000 });
        const second = coordinator.coordinate(w.request('k-stale-fail', { leaseMs: 10_000 }), fresh.run);
        await waitUntil(() => fresh.executions === 1);
        await first; // the stale owner failed and tried to release

        await expect(coordinator.coordinate(w.request('k-stale-fail'), fresh.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.InProgress,
        });
        fresh.release();
        await expect(second).resolves.toMatchObject({ id: 'ch_1' });
        expect(fresh.executions).toBe(1);
      });

      it('aborts the signal when a renewal is refused, and never stores over whoever holds the key', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 150, renewLease: true });
        let aborted: unknown;
        const result = coordinator.coordinate(w.request('k-abort'), async ({ signal }) => {
          // Someone else's write removes our reservation (an operator, or an expiry): the next renewal is refused.
          await w.removeRecord('payment.charge.t1', 'k-abort');
          // The renewal runs on its own connection: it can be refused, and abort, before this line runs.
          await whenAborted(signal);
          aborted = signal.reason;
          return { id: 'ch_late', amount: 1, currency: 'EUR' };
        });

        await expect(result).rejects.toMatchObject({
          code: IdempotencyErrorCode.LeaseLost,
          result: { id: 'ch_late' },
        });
        expect(aborted).toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
        expect(await w.records()).toEqual([]);
        expect(w.events.filter((e) => e.type === 'lease_lost')).toHaveLength(1);
      });

      it('a reservation whose owner died blocks duplicates only until its lease ends', async () => {
        const claim = await claimByDeadOwner('k-dead');
        expect(claim).toEqual({ status: 'acquired', fencingToken: expect.any(Number) });
        const deadToken = (claim as { fencingToken: number }).fencingToken;
        const coordinator = w.coordinator({ inFlight: 'raise' });
        const action = countingAction();

        const blocked = await coordinator
          .coordinate(w.request('k-dead'), action.run)
          .catch((e: unknown) => e);
        expect(blocked).toMatchObject({ code: IdempotencyErrorCode.InProgress });
        expect((blocked as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(300);
        await sleep(350);
        const after = await coordinator.coordinateWithOutcome(w.request('k-dead'), action.run);

        expect(action.executions).toBe(1);
        expect(after).toMatchObject({ outcome: 'executed', fencingToken: deadToken + 1 });
        // The dead owner's late completion is refused by the owner check.
        await expect(
          w.store.complete({
            operation: 'payment.charge.t1',
            key: 'k-dead',
            owner: 'dead-owner',
            payload: '{}',
            ttlMs: 5_000,
          }),
        ).resolves.toBe(false);
      });

      it('wait mode: a waiter behind a dead owner takes over when the lease ends', async () => {
        const dead = await claimByDeadOwner('k-dead-wait');
        const action = countingAction();
        const result = await w
          .coordinator({ inFlight: 'wait', waitTimeoutMs: 5_000 })
          .coordinateWithOutcome(w.request('k-dead-wait'), action.run);
        expect(result).toMatchObject({
          outcome: 'executed',
          fencingToken: (dead as { fencingToken: number }).fencingToken + 1,
        });
        expect(action.executions).toBe(1);
      });
    });

    describe('wait mode', () => {
      it('is woken by the completion (push): the waiter has the result well within its 1 s poll', async () => {
        // Three wake-ups, each timed from the owner's action returning (its completion follows) to the waiter's
        // result, released just after the waiter went to sleep: a poll would come about 1 s later.
        const latencies: number[] = [];
        for (let i = 0; i < 3; i++) latencies.push(await wakeUpLatency(w, `k-push-${i}`));
        const median = [...latencies].sort((a, b) => a - b)[1]!;
        expect(median).toBeLessThan(300);
      });

      it('when the owner fails, one waiter takes over and runs the action', async () => {
        const coordinator = w.coordinator({ inFlight: 'wait' });
        let executions = 0;
        let releaseFirst: () => void = () => {};
        const gate = new Promise<void>((r) => (releaseFirst = r));
        let firstToken: number | undefined;
        const action = async ({ fencingToken }: { fencingToken: number }): Promise<Charge> => {
          executions += 1;
          firstToken ??= fencingToken;
          if (fencingToken === firstToken) {
            await gate;
            throw new Error('first owner failed');
          }
          return { id: `ch_token_${fencingToken}`, amount: 1000, currency: 'EUR' };
        };
        const first = coordinator.coordinate(w.request('k-takeover'), action).catch((e: unknown) => e);
        await waitUntil(() => executions === 1);
        const waiters = Array.from({ length: 5 }, () =>
          coordinator.coordinate(w.request('k-takeover'), action),
        );
        await sleep(100);
        releaseFirst();

        expect(await first).toBeInstanceOf(Error);
        const results = await Promise.all(waiters);
        expect(executions).toBe(2);
        expect(new Set(results.map((r) => r.id))).toEqual(new Set([`ch_token_${firstToken! + 1}`]));
      });

      it('gives up with IDEMPOTENCY_IN_PROGRESS after waitTimeoutMs', async () => {
        const coordinator = w.coordinator({ inFlight: 'wait', waitTimeoutMs: 200 });
        const action = countingAction({ holdMs: 2_000 });
        const first = coordinator.coordinate(w.request('k-wait-timeout'), action.run);
        await waitUntil(() => action.executions === 1);

        await expect(coordinator.coordinate(w.request('k-wait-timeout'), action.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.InProgress,
        });
        expect(action.executions).toBe(1);
        action.release();
        await first;
      });
    });

    it('run mode: a duplicate runs beside the owner (the hazard) and never overwrites the stored result', async () => {
      const coordinator = w.coordinator({ inFlight: InFlightMode.Run });
      const action = countingAction({ holdMs: 300 });
      const first = coordinator.coordinateWithOutcome(w.request('k-run'), action.run);
      await waitUntil(() => action.executions === 1);
      const second = await coordinator.coordinateWithOutcome(w.request('k-run'), async (ctx) => ({
        ...(await action.run(ctx)),
        id: 'ch_duplicate',
      }));

      expect(second).toMatchObject({
        outcome: 'unprotected',
        fencingToken: 0,
        value: { id: 'ch_duplicate' },
      });
      const owner: CoordinatedResult<Charge> = await first;
      expect(owner).toMatchObject({ outcome: 'executed', fencingToken: expect.any(Number) });
      expect(owner.fencingToken).toBeGreaterThan(0);
      expect(action.executions).toBe(2);
      await expect(coordinator.coordinate(w.request('k-run'), action.run)).resolves.toEqual(owner.value);
    });

    describe('TTL', () => {
      it('is exact to the millisecond: a 1.5 s result replays at 1 s and runs again at 2 s', async () => {
        const coordinator = w.coordinator({ inFlight: 'raise' });
        const action = countingAction();
        await coordinator.coordinate(w.request('k-ttl', { ttlMs: 1_500 }), action.run);
        expect(await w.records()).toEqual(['payment.charge.t1:k-ttl']);
        const pttl = await w.remainingTtlMs('payment.charge.t1', 'k-ttl');
        expect(pttl).toBeGreaterThan(1_300);
        expect(pttl).toBeLessThanOrEqual(1_500);

        await sleep(1_000);
        await coordinator.coordinate(w.request('k-ttl', { ttlMs: 1_500 }), action.run);
        expect(action.executions).toBe(1);
        await sleep(1_000);
        await coordinator.coordinate(w.request('k-ttl', { ttlMs: 1_500 }), action.run);
        expect(action.executions).toBe(2);
      });

      it.each([999, 30 * 24 * 3600 * 1000 + 1, 1500.5])(
        'refuses ttlMs %d before touching Redis',
        async (ttlMs) => {
          const action = countingAction();
          await expect(
            w.coordinator().coordinate(w.request('k-bad-ttl', { ttlMs }), action.run),
          ).rejects.toMatchObject({
            code: IdempotencyErrorCode.InvalidOptions,
          });
          expect(action.executions).toBe(0);
          expect(await w.records()).toEqual([]);
        },
      );
    });

    describe('corrupt records are never a miss', () => {
      it.each(backend.corruptions)(
        '%s: IDEMPOTENCY_CORRUPT_RECORD and the action does not run',
        async (_, write) => {
          await write('payment.charge.t1', 'k-corrupt');
          const action = countingAction();
          await expect(w.coordinator().coordinate(w.request('k-corrupt'), action.run)).rejects.toMatchObject({
            code: IdempotencyErrorCode.CorruptRecord,
          });
          expect(action.executions).toBe(0);
          expect(w.events.map((e) => e.type)).toContain('corrupt_record');
          expect(w.events.map((e) => e.type)).not.toContain('hit');
        },
      );
    });

    it('isolates operations: the same key under two operations is two records', async () => {
      const coordinator = w.coordinator();
      const action = countingAction();
      await coordinator.coordinate(w.request('k-scope', { operation: 'payment.charge.tenantA' }), action.run);
      await coordinator.coordinate(w.request('k-scope', { operation: 'payment.charge.tenantB' }), action.run);
      expect(action.executions).toBe(2);
    });
  });
}

/**
 * Ms from the release of the owner's action to the waiter's result; released once the waiter's claim after its
 * subscribe was answered, so the waiter sleeps until a notification or its poll cap (1 s, the owner's lease is 30 s).
 */
async function wakeUpLatency(w: StoreWorld, key: string): Promise<number> {
  const owner = w.coordinator({ inFlight: 'wait' });
  const waiterStore = w.otherStore();
  let answered = 0;
  const answering: IdempotencyStore = {
    ...countingStore(waiterStore),
    claim: (r) => waiterStore.claim(r).finally(() => answered++),
  };
  const action = countingAction({ holdMs: 10_000 });
  const first = owner.coordinate(w.request(key), action.run);
  await waitUntil(() => action.executions === 1);
  const waiter = w.coordinator({ inFlight: 'wait' }, answering);
  const second = waiter.coordinateWithOutcome(w.request(key), action.run);
  // Claim (in progress), subscribe, claim again (in progress): asleep from then on.
  await waitUntil(() => answered === 2);
  const released = performance.now();
  action.release();
  await expect(second).resolves.toMatchObject({ outcome: 'replayed', value: { id: 'ch_1' } });
  const latency = performance.now() - released;
  await first;
  return latency;
}

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}
