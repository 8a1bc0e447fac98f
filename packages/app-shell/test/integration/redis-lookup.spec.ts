import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { startRedis, waitFor, type RedisHandle } from '@retry-safe/testing';
import { SharedLookupConnector, sharedLookup } from '../../src/redis-lookup.js';
import { createRedisClient } from '../../src/redis.js';

// A Redis host name whose resolver hangs (a stopped container's name on Docker's embedded DNS with no upstream
// answers after 10 s) until the test lets it answer.
const HOST = 'redis.lookup-test';

/** A resolver for HOST that answers only once released; it counts the questions it was asked. */
function hangingResolver(address: string) {
  let released = false;
  const pending: (() => void)[] = [];
  let asked = 0;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    asked += 1;
    const answer = () =>
      options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4);
    if (released) answer();
    else pending.push(answer);
  };
  return {
    lookup,
    asked: () => asked,
    release: () => {
      released = true;
      for (const answer of pending.splice(0)) answer();
    },
  };
}

describe('Redis connections whose host name does not resolve', () => {
  let redis: RedisHandle;
  const clients: Redis[] = [];
  let resolver: ReturnType<typeof hangingResolver>;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(() => {
    resolver?.release();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await redis?.close();
  });

  /** Two connections of one service that reconnect every ~100 ms while the lookup hangs (as a service's do). */
  function twoConnections(Connector: typeof SharedLookupConnector): Redis[] {
    for (let i = 0; i < 2; i++) {
      const client = new Redis({
        Connector,
        host: HOST,
        port: redis.port,
        connectTimeout: 100,
        retryStrategy: () => 20,
        enableOfflineQueue: false,
      });
      client.on('error', () => undefined);
      clients.push(client);
    }
    return clients;
  }

  it('hold one resolver question between them, however many attempts they make, and connect once it answers', async () => {
    resolver = hangingResolver('127.0.0.1');
    class Shared extends SharedLookupConnector {
      protected static override readonly lookup = sharedLookup(resolver.lookup);
    }
    const [a, b] = twoConnections(Shared);
    // Several connect timeouts and reconnects of each connection.
    await sleep(700);
    expect([resolver.asked(), a!.status === 'ready', b!.status === 'ready']).toEqual([1, false, false]);

    resolver.release();
    await waitFor('both connections ready', async () => {
      if (a!.status !== 'ready' || b!.status !== 'ready') throw new Error(`${a!.status}, ${b!.status}`);
    });
    expect(await Promise.all([a!.ping(), b!.ping()])).toEqual(['PONG', 'PONG']);
  });

  it('without the shared lookup, every attempt of every connection asks again (a thread each, in Node)', async () => {
    resolver = hangingResolver('127.0.0.1');
    class Unshared extends SharedLookupConnector {
      protected static override readonly lookup = resolver.lookup;
    }
    twoConnections(Unshared);
    await sleep(700);
    expect(resolver.asked()).toBeGreaterThanOrEqual(6);
  });

  it("is how the shell's clients connect", () => {
    const client = createRedisClient(redis.url, new Logger('redis-lookup-test'));
    clients.push(client);
    expect(client.options.Connector).toBe(SharedLookupConnector);
  });
});
