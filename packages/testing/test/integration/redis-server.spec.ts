import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startPrivateRedisServer, startRedisCluster, type RedisHandle } from '../../src/index.js';

describe('startPrivateRedisServer', () => {
  let redis: RedisHandle;
  beforeAll(async () => {
    redis = await startPrivateRedisServer({ appendOnly: true });
  });
  afterAll(async () => {
    await redis.close();
  });

  it('keeps acknowledged writes across a restart with appendonly', async () => {
    const client = redis.client();
    await client.set('testing:survives', 'yes');
    client.disconnect();
    await redis.control!.restart();
    const again = redis.client();
    expect(await again.get('testing:survives')).toBe('yes');
    again.disconnect();
  });
});

describe('startRedisCluster', () => {
  it('forms a 3-master cluster that routes keys by slot', async () => {
    const cluster = await startRedisCluster();
    const client = cluster.client();
    try {
      await client.set('{a}x', '1');
      await client.set('{b}y', '2');
      expect(await client.mget('{a}x')).toEqual(['1']);
      const masters = String(await client.cluster('NODES'))
        .split('\n')
        .filter((l: string) => l.includes('master'));
      expect(masters).toHaveLength(3);
    } finally {
      await client.quit();
      await cluster.close();
    }
  }, 30_000);
});
