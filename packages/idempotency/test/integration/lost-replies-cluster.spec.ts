import { startRedisCluster } from '@retry-safe/testing';
import { faultyRedis, suiteFaultyStores } from './faulty-store.js';
import { describeLostReplies } from './lost-replies.behaviour.js';
import { proxiedCluster, type ProxiedRedis } from './proxied-redis.js';
import { describeRedisLostReplies } from './redis-lost-replies.behaviour.js';

// The same suites on a local 3-master Redis Cluster, one proxy in front of each master.
let net: ProxiedRedis;
const stores = suiteFaultyStores(async () =>
  faultyRedis((net = await proxiedCluster(await startRedisCluster({ masters: 3 })))),
);

describeLostReplies('a 3-master Redis Cluster', stores);
describeRedisLostReplies('a 3-master Redis Cluster', () => net);
