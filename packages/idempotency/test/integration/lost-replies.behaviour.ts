import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { CLOCK_SLACK_MS, ProxyDirection, whenAborted } from '@retry-safe/testing';
import {
  IdempotencyErrorCode,
  type CoordinatedResult,
  type IdempotencyCoordinator,
} from '../../src/index.js';
import type { FaultyStores, FaultyWorld } from './faulty-store.js';
import { countingAction, eventually, sleep, type Charge } from './support.js';

/** The stores' bound on one call in these tests: short, so a silent network costs little test time. */
const TIMEOUT_MS = 500;
/** How long a retry after a lost claim may take at most: a give-back (end the backend, release) and a claim. */
const RETRY_BOUND_MS = 1_000;
/** Room above the bound for a loaded machine's timers. */
const TIMER_SLACK_MS = 400;

/**
 * Lost, silent and slow replies between the store and its server, through TCP proxies: what every store survives
 * alike (Redis, Redis Cluster, PostgreSQL; redis-lost-replies.behaviour.ts has Redis' own). A lost claim never
 * blocks its retry beyond a small bound, the action runs exactly once, and nothing stays busy on the server.
 * `stores` is the suite's, started and closed by the spec.
 */
export function describeLostReplies(name: string, stores: () => FaultyStores): void {
  describe(`lost and slow replies on ${name}`, () => {
    let net: FaultyStores['net'];
    let w: FaultyWorld | undefined;

    beforeAll(() => {
      net = stores().net;
    });

    afterEach(async () => {
      net.releaseReplies();
      await net.heal();
      await w?.close();
      w = undefined;
    });

    const newWorld = async (commandTimeoutMs = TIMEOUT_MS) =>
      (w = await stores().world({ commandTimeoutMs }));

    /** The retry after the fault, once the network is back: not blocked, and the action ran once in all. */
    async function retryRunsOnce(
      world: FaultyWorld,
      key: string,
      action: ReturnType<typeof countingAction>,
      expected: CoordinatedResult<Charge>['outcome'],
    ): Promise<void> {
      const started = Date.now();
      const retry = await world
        .coordinator({ inFlight: 'raise' })
        .coordinateWithOutcome(world.request(key), action.run);
      expect(Date.now() - started).toBeLessThan(RETRY_BOUND_MS);
      expect(retry).toMatchObject({ outcome: expected, value: { id: 'ch_1' } });
      expect(action.executions).toBe(1);
      expect(await world.records()).toEqual([`payment.charge.t1:${key}`]);
      expect(await world.stateOf(key)).toBe('c');
      // A give-back of the lost claim may still be finishing (its owner-checked release changes nothing now).
      await eventually('no busy session', async () => (await world.busySessions()) === 0, TIMEOUT_MS);
    }

    it('a claim reply lost after the store ran it (held until the record is visible, then reset): the action runs once, the retry is not blocked', async () => {
      const world = await newWorld(2_000);
      const action = countingAction();
      net.holdReplies();
      const first = world
        .coordinator({ inFlight: 'raise' })
        .coordinateWithOutcome(world.request('k-lost-claim'), action.run)
        .catch((e: unknown) => e);
      // A bound on waiting, not a speed: a full run's other worker once kept the claim from landing within 3 s.
      await eventually('the claim ran', async () => (await world.stateOf('k-lost-claim')) === 'p', 10_000);
      net.resetAll();
      net.releaseReplies();

      // Redis' client resends the claim after it reconnects, and the claim answers its own owner again;
      // PostgreSQL's caller hears "unavailable" (the connection is gone, and with it the answer).
      const outcome = await first;
      if (outcome instanceof Error)
        expect(outcome).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
      else expect(outcome).toMatchObject({ outcome: 'executed' });
      await net.heal();
      await retryRunsOnce(world, 'k-lost-claim', action, outcome instanceof Error ? 'executed' : 'replayed');
    });

    it.each([ProxyDirection.Replies, ProxyDirection.Requests, ProxyDirection.Both])(
      '%s blackholed during a claim: the call fails within commandTimeoutMs, nothing stays busy, the retry runs the action once',
      async (direction) => {
        const world = await newWorld();
        const action = countingAction();
        net.blackhole(direction);
        const started = Date.now();
        const failed = await world
          .coordinator({ inFlight: 'raise' })
          .coordinate(world.request(`k-blackhole-${direction}`), action.run)
          .catch((e: unknown) => e);
        const took = Date.now() - started;

        expect(failed).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
        expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - CLOCK_SLACK_MS);
        expect(took).toBeLessThan(TIMEOUT_MS + TIMER_SLACK_MS);
        expect(action.executions).toBe(0);
        // No session left running the claim or holding a transaction once the call gave up.
        await eventually('no busy session', async () => (await world.busySessions()) === 0, TIMEOUT_MS);
        await net.heal();
        await retryRunsOnce(world, `k-blackhole-${direction}`, action, 'executed');
      },
    );

    it('replies delayed past commandTimeoutMs: the call fails within its bound, the retry runs the action once', async () => {
      const world = await newWorld();
      const action = countingAction();
      net.delayReplies(TIMEOUT_MS * 3);
      const started = Date.now();
      const failed = await world
        .coordinator({ inFlight: 'raise' })
        .coordinate(world.request('k-slow'), action.run)
        .catch((e: unknown) => e);
      const took = Date.now() - started;

      expect(failed).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable });
      expect(took).toBeLessThan(TIMEOUT_MS + TIMER_SLACK_MS);
      // The claim did run: the server has the reservation whose answer came too late.
      await eventually('the late claim is stored', async () => (await world.stateOf('k-slow')) === 'p');
      await net.heal();
      await retryRunsOnce(world, 'k-slow', action, 'executed');
    });

    it("a silent connection while the action runs: the signal aborts at the owner's lease deadline, before another owner takes over", async () => {
      const world = await newWorld(10_000);
      const leaseMs = 600;
      let signal: AbortSignal | undefined;
      const first = world
        .coordinator({ inFlight: 'raise', leaseMs })
        .coordinate(world.request('k-silent'), async (ctx) => {
          signal = ctx.signal;
          // Every reply from now on is held: renewals go out and never come back.
          net.holdReplies();
          await whenAborted(ctx.signal);
          return { id: 'ch_silent', amount: 1, currency: 'EUR' };
        })
        .catch((e: unknown) => e);
      while (signal === undefined) await sleep(5);

      // Another process, straight to the server, takes the key over as soon as the store lets it.
      const other = world.coordinator({ inFlight: 'raise' }, world.directStore());
      const abortedAtTakeover = await takeOver(other, world, () => signal?.aborted);

      expect(abortedAtTakeover).toBe(true);
      net.releaseReplies();
      expect(await first).toMatchObject({
        code: IdempotencyErrorCode.LeaseLost,
        result: { id: 'ch_silent' },
      });
    });
  });
}

/** Claims `k-silent` on `other` until it runs; returns what `aborted()` said when its action started. */
async function takeOver(
  other: IdempotencyCoordinator,
  world: FaultyWorld,
  aborted: () => boolean | undefined,
): Promise<boolean | undefined> {
  let abortedAtTakeover: boolean | undefined;
  for (;;) {
    const attempt = await other
      .coordinate(world.request('k-silent'), async (ctx) => {
        abortedAtTakeover = aborted();
        return countingAction().run(ctx);
      })
      .catch((e: { code?: string; retryAfterMs?: number }) => e);
    if (!('code' in attempt) || attempt.code !== IdempotencyErrorCode.InProgress) return abortedAtTakeover;
    await sleep(Math.max(1, attempt.retryAfterMs ?? 10));
  }
}
