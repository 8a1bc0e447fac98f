import { startRedisCluster } from '@retry-safe/testing';
import { describeLostReplies } from './lost-replies.behaviour.js';
import { proxiedCluster } from './proxied-redis.js';

// The same suite on a local 3-master Redis Cluster, one proxy in front of each master.
describeLostReplies('a 3-master Redis Cluster', async () =>
  proxiedCluster(await startRedisCluster({ masters: 3 })),
);
