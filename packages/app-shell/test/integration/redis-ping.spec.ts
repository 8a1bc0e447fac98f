import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { busyFor, startRedis, type RedisHandle } from '@retry-safe/testing';
import { pingRedis } from '../../src/redis.js';

describe('pingRedis (the readiness check)', () => {
  let redis: RedisHandle;
  let client: Redis;

  beforeAll(async () => {
    // A private server: the suite pauses it.
    redis = await startRedis({ controllable: true });
    client = redis.client();
    client.on('error', () => undefined);
    await client.ping();
  });
  afterAll(async () => {
    redis?.control?.resume();
    client?.disconnect();
    await redis?.close();
  });

  it('a PONG that arrived while this process was busy past the 500 ms bound counts: the service is ready', async () => {
    const ping = pingRedis(client);
    // Redis answers within a millisecond; the answer waits unread while the thread spins (a loaded service).
    await busyFor(800);
    expect(await ping).toBe(true);
  });

  it('a Redis that does not answer (paused) is not ready, within the bound', async () => {
    redis.control!.pause();
    const started = Date.now();
    try {
      expect(await pingRedis(client)).toBe(false);
      // An upper bound with room for a loaded machine: the point is that a silent Redis cannot hold the check.
      expect(Date.now() - started).toBeLessThan(500 + 1_000);
    } finally {
      redis.control!.resume();
    }
  });
});
