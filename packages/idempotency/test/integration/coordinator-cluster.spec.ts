import { afterAll, beforeAll } from '@jest/globals';
import type { Cluster } from 'ioredis';
import { startRedisCluster, type RedisClusterHandle } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { redisBackend } from './support.js';

// The same suite on a local 3-master Redis Cluster: a script touching keys of two slots would fail with CROSSSLOT.
let cluster: RedisClusterHandle;
let client: Cluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  client = cluster.client();
}, 30_000);

afterAll(async () => {
  await client.quit();
  await cluster.close();
});

describeCoordinatorBehaviour(
  'a 3-master Redis Cluster',
  redisBackend(() => client),
);
describeCoordinatorHardening('a 3-master Redis Cluster', () => client);
