import { startRedis } from '@retry-safe/testing';
import { faultyRedis, suiteFaultyStores } from './faulty-store.js';
import { describeLostReplies } from './lost-replies.behaviour.js';
import { proxiedStandalone, type ProxiedRedis } from './proxied-redis.js';
import { describeRedisLostReplies } from './redis-lost-replies.behaviour.js';

// One proxied Redis for both suites: the store-independent one and Redis' own.
let net: ProxiedRedis;
const stores = suiteFaultyStores(async () =>
  faultyRedis((net = await proxiedStandalone(await startRedis()))),
);

describeLostReplies('a standalone Redis', stores);
describeRedisLostReplies('a standalone Redis', () => net);
