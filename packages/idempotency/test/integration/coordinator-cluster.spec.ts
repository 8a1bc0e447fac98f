import { startRedisCluster } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { describeRedisHardening } from './redis-hardening.behaviour.js';
import { redisBackend, suiteRedis } from './support.js';

// The same suites on a local 3-master Redis Cluster: a script touching keys of two slots would fail with CROSSSLOT.
const cluster = suiteRedis(() => startRedisCluster({ masters: 3 }), 30_000);
const backend = redisBackend(() => cluster.client);

describeCoordinatorBehaviour('a 3-master Redis Cluster', backend);
describeCoordinatorHardening('a 3-master Redis Cluster', backend);
describeRedisHardening('a 3-master Redis Cluster', () => cluster.client);
