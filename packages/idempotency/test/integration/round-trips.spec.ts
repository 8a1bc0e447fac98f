import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startPrivateRedisServer, type RedisHandle } from '@retry-safe/testing';
import { countingAction, sleep, world } from './support.js';

// Counts what reaches Redis with MONITOR, which also shows the commands scripts run, tagged with source 'lua':
// round trips are the commands from clients.
let redis: RedisHandle;
let client: Redis;
let monitorClient: Redis;
let monitor: Awaited<ReturnType<Redis['monitor']>>;
const seen: { command: string; source: string }[] = [];

beforeAll(async () => {
  redis = await startPrivateRedisServer();
  client = redis.client();
  await client.ping();
  monitorClient = redis.client();
  monitor = await monitorClient.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    seen.push({ command: String(args[0]).toLowerCase(), source });
  });
});

afterAll(async () => {
  monitor.disconnect();
  monitorClient.disconnect();
  await client.quit();
  await redis.close();
});

async function roundTrips(fn: () => Promise<unknown>): Promise<string[]> {
  await sleep(50);
  seen.length = 0;
  await fn();
  await sleep(50);
  return seen.filter((c) => c.source !== 'lua').map((c) => c.command);
}

it('first execution costs 2 round trips, a replay 1, a conflict 1', async () => {
  const w = world(client);
  const coordinator = w.coordinator({ inFlight: 'raise', renewLease: true });
  const action = countingAction();
  // Load the scripts once (EVALSHA falls back to EVAL on NOSCRIPT the very first time).
  await coordinator.coordinate(w.request('warm-up'), action.run);

  expect(await roundTrips(() => coordinator.coordinate(w.request('k-1'), action.run))).toEqual([
    'evalsha',
    'evalsha',
  ]);
  expect(await roundTrips(() => coordinator.coordinate(w.request('k-1'), action.run))).toEqual(['evalsha']);
  expect(
    await roundTrips(() =>
      coordinator.coordinate(w.request('k-1', { fingerprint: 'other' }), action.run).catch(() => undefined),
    ),
  ).toEqual(['evalsha']);
  await w.close();
});
