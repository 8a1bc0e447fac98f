import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startPrivateRedisServer, type RedisHandle } from '@retry-safe/testing';
import { IdempotencyErrorCode } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { countingAction, world, type World } from './support.js';

// Large on purpose: "at once" must be visibly less than waiting it out.
const COMMAND_TIMEOUT_MS = 3_000;

// A private redis-server this suite stops (connections refused) and pauses (SIGSTOP: connected, silent).
// Without fail-fast, three calls would wait the timeout each: leave room for the assertion to say so.
jest.setTimeout(COMMAND_TIMEOUT_MS * 6);

let redis: RedisHandle;
let client: Redis;
let w: World;
let stopped = false;

beforeAll(async () => {
  redis = await startPrivateRedisServer();
  // Default ioredis settings (offline queue on, reconnecting forever): the store must not wait in that queue.
  client = redis.client();
  client.on('error', () => undefined);
});

afterEach(async () => {
  redis.control!.resume();
  if (stopped) await redis.control!.start();
  stopped = false;
  await w?.close();
});

afterAll(async () => {
  client.disconnect();
  await redis.close();
});

function failClosedWorld() {
  w = world(client);
  const store = new RedisIdempotencyStore(client, {
    keyPrefix: w.prefix,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  const coordinator = w.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' }, store);
  return { store, coordinator };
}

async function timed(promise: Promise<unknown>): Promise<{ result: unknown; ms: number }> {
  const started = Date.now();
  const result = await promise.catch((e: unknown) => e);
  return { result, ms: Date.now() - started };
}

const untilStatus = (status: string) =>
  new Promise<void>((resolve) => {
    if (client.status === status) resolve();
    else client.once(status, () => resolve());
  });

describe('fail-closed with Redis known to be down', () => {
  it('refusing connections: every claim answers unavailable at once, nothing is queued, the action never runs', async () => {
    const { coordinator } = failClosedWorld();
    const action = countingAction();
    await redis.control!.stop();
    stopped = true;
    // The client has noticed: its connection closed and it is retrying.
    await untilStatus('reconnecting');

    const calls = [];
    for (let i = 0; i < 3; i++)
      calls.push(await timed(coordinator.coordinate(w.request('k-refused'), action.run)));

    for (const call of calls) {
      expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-refused' });
      expect((call.result as Error).cause).toMatchObject({ name: 'ConnectionDownError' });
      expect(call.ms).toBeLessThan(COMMAND_TIMEOUT_MS / 2);
    }
    expect(action.executions).toBe(0);

    await redis.control!.start();
    stopped = false;
    await untilStatus('ready');
    // Nothing was sent while down, so no late claim holds the key: the first call after recovery runs it.
    await expect(
      coordinator.coordinateWithOutcome(w.request('k-refused'), action.run),
    ).resolves.toMatchObject({
      outcome: 'executed',
    });
    await coordinator.coordinate(w.request('k-refused'), action.run);
    expect(action.executions).toBe(1);
  });

  it('paused (SIGSTOP): the connection looks up, so the claim is bounded by commandTimeoutMs instead', async () => {
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
  });

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
