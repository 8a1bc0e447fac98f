import { startRedis } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { redisBackend, suiteRedis } from './support.js';

const redis = suiteRedis(() => startRedis());

describeCoordinatorBehaviour(
  'a standalone Redis',
  redisBackend(() => redis.client),
);
describeCoordinatorHardening('a standalone Redis', () => redis.client);
