import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type { Cluster, Redis } from 'ioredis';
import { startRedis, startRedisCluster } from '@retry-safe/testing';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { describeRecordModel, MODEL_TIMES, MODEL_UNIT_MS } from './record-model.behaviour.js';
import { proxiedCluster, proxiedStandalone, type ProxiedRedis } from './proxied-redis.js';
import { eventually } from './support.js';
import { redisSystem, type RecordSystem } from './record-systems.js';

// The model-based property test on a standalone Redis and on a 3-master Cluster. The store talks through TCP
// proxies: a lost reply is a real one (the proxy drops the connection after forwarding the call, ioredis
// reconnects and resends it), so a script may run twice for one call.
function proxiedSystem(start: () => Promise<ProxiedRedis>) {
  const suite = {} as { net: ProxiedRedis; client: Redis | Cluster; system: RecordSystem };
  beforeAll(async () => {
    suite.net = await start();
    // Reconnect at once after a lost reply: the default backoff would spend most of the run waiting.
    suite.client = await suite.net.client({ retryStrategy: () => 1 });
    const store = new RedisIdempotencyStore(suite.client, { keyPrefix: `model:${randomUUID()}:` });
    suite.system = redisSystem({
      store,
      direct: suite.net.direct,
      times: MODEL_TIMES,
      unitMs: MODEL_UNIT_MS,
      lose: async (key, call) => {
        const dropped = suite.net.dropAfterRequest((text) => text.includes(`${key}\r\n`));
        const result = await call();
        await dropped;
        // The resent call has answered; the next claim must not meet a client still marked reconnecting.
        await eventually('the client is ready again', () => suite.client.status === 'ready');
        return result;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await suite.net.close();
  });
  return suite;
}

const standalone = proxiedSystem(async () => proxiedStandalone(await startRedis()));
describeRecordModel('a standalone Redis', { runs: 200, withSystem: (run) => run(standalone.system) });

// A command whose node connection dropped is retried after retryDelayOnFailover (100 ms by default).
const fast = { retryDelayOnFailover: 1, retryDelayOnClusterDown: 1, retryDelayOnTryAgain: 1 };
const cluster = proxiedSystem(async () => proxiedCluster(await startRedisCluster({ masters: 3 }), fast));
describeRecordModel('a 3-master Redis Cluster', { runs: 200, withSystem: (run) => run(cluster.system) });
