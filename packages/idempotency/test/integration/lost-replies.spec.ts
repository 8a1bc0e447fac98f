import { startRedis } from '@retry-safe/testing';
import { describeLostReplies } from './lost-replies.behaviour.js';
import { proxiedStandalone } from './proxied-redis.js';

describeLostReplies('a standalone Redis', async () => proxiedStandalone(await startRedis()));
