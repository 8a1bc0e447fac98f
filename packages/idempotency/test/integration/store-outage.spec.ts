import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { CLOCK_SLACK_MS, busyFor, startPrivateRedisServer, type RedisHandle } from '@retry-safe/testing';
import { IdempotencyErrorCode } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { describeStoreOutage, timed } from './store-outage.behaviour.js';
import { countingAction, world, type World } from './support.js';

// A private redis-server this suite stops, pauses and restarts.
let redis: RedisHandle;
let client: Redis;
let w: World | undefined;

beforeAll(async () => {
  redis = await startPrivateRedisServer();
  // Default ioredis settings on purpose (offline queue, 20 retries per request): the store's own timeout must
  // bound every call whatever the client does.
  client = redis.client();
  client.on('error', () => undefined);
});

afterEach(async () => {
  redis.control!.resume();
  await w?.close();
  w = undefined;
});

afterAll(async () => {
  client.disconnect();
  await redis.close();
});

// Stopped and paused, fail-closed and fail-open: the same suite as PostgreSQL's (store-outage.behaviour.ts).
describeStoreOutage('Redis', () => ({
  world: async (commandTimeoutMs) => {
    // A test after a stop starts once the client has reconnected (a known-down client refuses claims at once).
    await untilStatus('ready');
    const outage = world(client);
    (outage.store as { commandTimeoutMs: number }).commandTimeoutMs = commandTimeoutMs;
    return outage;
  },
  stop: () => redis.control!.stop(),
  start: () => redis.control!.start(),
  pause: () => redis.control!.pause(),
  resume: () => redis.control!.resume(),
}));

// Fail fast (known down) against bounded (silent): a large timeout, so "at once" is visibly less than waiting it out.
const COMMAND_TIMEOUT_MS = 3_000;
// Without fail-fast, three calls would wait the timeout each: leave room for the assertion to say so.
const FAIL_FAST_TEST_TIMEOUT_MS = COMMAND_TIMEOUT_MS * 6;

function failClosedWorld() {
  const current = (w = world(client));
  const store = new RedisIdempotencyStore(client, {
    keyPrefix: current.prefix,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  const coordinator = current.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' }, store);
  return { store, coordinator, w: current };
}

const untilStatus = (status: string) =>
  new Promise<void>((resolve) => {
    if (client.status === status) resolve();
    else client.once(status, () => resolve());
  });

describe('fail-closed with Redis known to be down', () => {
  it(
    'refusing connections: every claim answers unavailable at once, nothing is queued, the action never runs',
    async () => {
      const { coordinator, w } = failClosedWorld();
      const action = countingAction();
      await redis.control!.stop();
      const calls = [];
      try {
        // The client has noticed: its connection closed and it is retrying.
        await untilStatus('reconnecting');
        for (let i = 0; i < 3; i++)
          calls.push(await timed(coordinator.coordinate(w.request('k-refused'), action.run)));
      } finally {
        await redis.control!.start();
      }

      for (const call of calls) {
        expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-refused' });
        expect((call.result as Error).cause).toMatchObject({ name: 'ConnectionDownError' });
        expect(call.ms).toBeLessThan(COMMAND_TIMEOUT_MS / 2);
      }
      expect(action.executions).toBe(0);

      await untilStatus('ready');
      // Nothing was sent while down, so no late claim holds the key: the first call after recovery runs it.
      await expect(
        coordinator.coordinateWithOutcome(w.request('k-refused'), action.run),
      ).resolves.toMatchObject({
        outcome: 'executed',
      });
      await coordinator.coordinate(w.request('k-refused'), action.run);
      expect(action.executions).toBe(1);
    },
    FAIL_FAST_TEST_TIMEOUT_MS,
  );

  it(
    'paused (SIGSTOP): the connection looks up, so the claim is bounded by commandTimeoutMs instead',
    async () => {
      await untilStatus('ready');
      const { coordinator, w } = failClosedWorld();
      const action = countingAction();
      redis.control!.pause();

      const call = await timed(coordinator.coordinate(w.request('k-paused'), action.run));

      expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-paused' });
      expect((call.result as Error).cause).toMatchObject({ name: 'CommandTimeoutError' });
      expect(call.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - CLOCK_SLACK_MS);
      expect(call.ms).toBeLessThan(COMMAND_TIMEOUT_MS * 1.5);
      expect(action.executions).toBe(0);
    },
    FAIL_FAST_TEST_TIMEOUT_MS,
  );

  it('a client still making its first connection is not "down": its first claim waits for it and succeeds', async () => {
    await untilStatus('ready');
    const w = world(client);
    const fresh = redis.client({ lazyConnect: true });
    try {
      const store = new RedisIdempotencyStore(fresh, { keyPrefix: `${w.prefix}fresh:` });
      const action = countingAction();
      const coordinator = w.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' }, store);
      await expect(
        coordinator.coordinateWithOutcome(w.request('k-first'), action.run),
      ).resolves.toMatchObject({
        outcome: 'executed',
      });
      expect(action.executions).toBe(1);
    } finally {
      fresh.disconnect();
    }
  });
});

describe('a busy process is not a store that is down', () => {
  it('a claim Redis answered while this process was busy past the command timeout executes, with no store error', async () => {
    const current = (w = world(client));
    // 200 ms: the calls after the busy stretch (the complete) have room on a loaded machine.
    const store = new RedisIdempotencyStore(client, { keyPrefix: current.prefix, commandTimeoutMs: 200 });
    const coordinator = current.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' }, store);
    const action = countingAction();
    await untilStatus('ready');
    // Scripts loaded first: a NOSCRIPT would add a second round trip, sent only once the thread is free again.
    await coordinator.coordinate(current.request('k-warm'), countingAction().run);

    const call = coordinator.coordinateWithOutcome(current.request('k-busy'), action.run);
    // The claim left in this tick; Redis answers within a millisecond, and the answer waits unread in the socket
    // while the thread spins three times the timeout (scenario 7's 200 requests on two loaded replicas).
    await busyFor(600);

    await expect(call).resolves.toMatchObject({ outcome: 'executed' });
    expect(action.executions).toBe(1);
    expect(current.events.filter((e) => e.type === 'store_error')).toEqual([]);
  });
});
