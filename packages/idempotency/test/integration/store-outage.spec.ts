import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startPrivateRedisServer, type RedisHandle } from '@retry-safe/testing';
import { IdempotencyErrorCode } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { countingAction, sleep, world, type World } from './support.js';

// A private redis-server this suite stops, pauses and restarts.
let redis: RedisHandle;
let client: Redis;
let w: World;

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
});

afterAll(async () => {
  client.disconnect();
  await redis.close();
});

async function timed<T>(promise: Promise<T>): Promise<{ result: T | unknown; ms: number }> {
  const started = Date.now();
  const result = await promise.catch((e: unknown) => e);
  return { result, ms: Date.now() - started };
}

describe.each([
  ['stopped', () => redis.control!.stop(), () => redis.control!.start()],
  [
    'paused (SIGSTOP: connections stay open, nothing answers)',
    async () => redis.control!.pause(),
    async () => redis.control!.resume(),
  ],
])('Redis %s', (_, breakRedis, healRedis) => {
  it('fail-closed rejects within the command timeout and never runs the action; after recovery the key charges once', async () => {
    w = world(client);
    const store = w.store;
    (store as { commandTimeoutMs: number }).commandTimeoutMs = 300;
    const coordinator = w.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' });
    const action = countingAction();
    await breakRedis();

    const first = await timed(coordinator.coordinate(w.request('k-down'), action.run));
    const second = await timed(coordinator.coordinate(w.request('k-down'), action.run));

    for (const call of [first, second]) {
      expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-down' });
      expect(call.ms).toBeLessThan(300 + 700);
    }
    expect(action.executions).toBe(0);
    expect(w.events.filter((e) => e.type === 'store_error').length).toBeGreaterThanOrEqual(2);

    await healRedis();
    // Claims queued while Redis was unreachable may run late; the store gives any such grant back at once, so
    // the key is not blocked for a lease.
    await waitForCharge(() => coordinator.coordinate(w.request('k-down'), action.run));
    await coordinator.coordinate(w.request('k-down'), action.run);
    expect(action.executions).toBe(1);
  });

  it('fail-open runs the action unprotected: two calls, two effects', async () => {
    w = world(client);
    (w.store as { commandTimeoutMs: number }).commandTimeoutMs = 300;
    const coordinator = w.coordinator({ onStoreUnavailable: 'fail-open', inFlight: 'raise' });
    const action = countingAction();
    await breakRedis();

    const first = await coordinator.coordinateWithOutcome(w.request('k-open'), action.run);
    const second = await coordinator.coordinateWithOutcome(w.request('k-open'), action.run);

    expect(action.executions).toBe(2);
    expect([first.outcome, second.outcome]).toEqual(['unprotected', 'unprotected']);
    expect(w.events.filter((e) => e.type === 'fail_open')).toHaveLength(2);
    await healRedis();
  });
});

it('fail-open never overwrites a record: the unprotected result is stored only where none exists', async () => {
  w = world(client);
  const coordinator = w.coordinator({ inFlight: 'raise' });
  const action = countingAction();
  const stored = await coordinator.coordinate(w.request('k-open-2'), action.run);

  expect(
    await w.store.storeIfAbsent({
      operation: 'payment.charge.t1',
      key: 'k-open-2',
      fingerprint: 'fp-a',
      payload: JSON.stringify({ id: 'ch_unprotected', amount: 1, currency: 'EUR' }),
      ttlMs: 60_000,
    }),
  ).toBe(false);
  await expect(coordinator.coordinate(w.request('k-open-2'), action.run)).resolves.toEqual(stored);
});

async function waitForCharge(call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await call().catch((e: unknown) => e);
    if (!(result instanceof Error)) return;
    if (Date.now() > deadline) throw result;
    await sleep(100);
  }
}

// Fail fast (known down) against bounded (silent): a large timeout, so "at once" is visibly less than waiting it out.
const COMMAND_TIMEOUT_MS = 3_000;
// Without fail-fast, three calls would wait the timeout each: leave room for the assertion to say so.
const FAIL_FAST_TEST_TIMEOUT_MS = COMMAND_TIMEOUT_MS * 6;

function failClosedWorld() {
  w = world(client);
  const store = new RedisIdempotencyStore(client, {
    keyPrefix: w.prefix,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  const coordinator = w.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' }, store);
  return { store, coordinator };
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
      const { coordinator } = failClosedWorld();
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
      const { coordinator } = failClosedWorld();
      const action = countingAction();
      redis.control!.pause();

      const call = await timed(coordinator.coordinate(w.request('k-paused'), action.run));

      expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-paused' });
      expect((call.result as Error).cause).toMatchObject({ name: 'CommandTimeoutError' });
      // Timers never fire early, but Date.now() can round down by a millisecond.
      expect(call.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 1);
      expect(call.ms).toBeLessThan(COMMAND_TIMEOUT_MS * 1.5);
      expect(action.executions).toBe(0);
    },
    FAIL_FAST_TEST_TIMEOUT_MS,
  );

  it('a client still making its first connection is not "down": its first claim waits for it and succeeds', async () => {
    await untilStatus('ready');
    w = world(client);
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
