import { afterAll, beforeAll } from '@jest/globals';
import type { Redis } from 'ioredis';
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import { describeCoordinatorBehaviour } from './coordinator.behaviour.js';
import { describeCoordinatorHardening } from './coordinator-hardening.behaviour.js';
import { redisBackend } from './support.js';

let redis: RedisHandle;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = redis.client();
});

afterAll(async () => {
  await client.quit();
  await redis.close();
});

describeCoordinatorBehaviour(
  'a standalone Redis',
  redisBackend(() => client),
);
describeCoordinatorHardening('a standalone Redis', () => client);
