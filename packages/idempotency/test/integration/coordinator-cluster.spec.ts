import { startRedisCluster } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { redisBackend, suiteRedis } from './support.js';

// The same suite on a local 3-master Redis Cluster: a script touching keys of two slots would fail with CROSSSLOT.
const cluster = suiteRedis(() => startRedisCluster({ masters: 3 }), 30_000);

describeCoordinatorBehaviour(
  'a 3-master Redis Cluster',
  redisBackend(() => cluster.client),
);
describeCoordinatorHardening('a 3-master Redis Cluster', () => cluster.client);
