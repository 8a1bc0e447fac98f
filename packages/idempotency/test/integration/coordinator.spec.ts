import { startRedis } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { describeIdempotentFunction } from './idempotent-function.behaviour.js';
import { describeRedisHardening } from './redis-hardening.behaviour.js';
import { redisBackend, suiteRedis } from './support.js';

const redis = suiteRedis(() => startRedis());
const backend = redisBackend(() => redis.client);

describeCoordinatorBehaviour('a standalone Redis', backend);
describeCoordinatorHardening('a standalone Redis', backend);
describeIdempotentFunction('a standalone Redis', backend);
describeRedisHardening('a standalone Redis', () => redis.client);
