import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { startRedis, waitFor, type RedisHandle } from '@retry-safe/testing';
import { createRedisClient } from '../../src/redis.js';

const PASSWORD = 'right-password-0123456789';

describe('a Redis with a password', () => {
  let redis: RedisHandle;

  beforeAll(async () => {
    // A private server (never the shared one): its password is set after it started.
    redis = await startRedis({ controllable: true });
    const admin = redis.client();
    await admin.config('SET', 'requirepass', PASSWORD);
    await admin.quit();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('is reached with the password in REDIS_URL', async () => {
    const client = createRedisClient(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`, new Logger('test'));
    await waitFor('the client ready', async () => {
      if (client.status !== 'ready') throw new Error(client.status);
    });
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });
});
