import { Redis } from 'ioredis';
import { IdempotencyCoordinator, RedisIdempotencyStore, jsonCodec } from '@retry-safe/idempotency';
import { startPrivateRedisServer } from '@retry-safe/testing';
const redis = await startPrivateRedisServer();
const client = new Redis(redis.url);
const store = new RedisIdempotencyStore(client, { keyPrefix: 'b:' });
const c = new IdempotencyCoordinator(store, { inFlight: 'raise' });
const codec = jsonCodec();
const charge = { id: 'x'.repeat(36), orderId: 'y'.repeat(36), amount: 4999, currency: 'EUR', status: 'succeeded', providerChargeId: 'ch_1042' };
const mode = process.argv[2];
const N = 20000;
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  if (mode === 'ping') await client.ping();
  else if (mode === 'replay') await c.coordinate({ operation: 'op', key: 'k1', ttlMs: 3600000, codec, fingerprint: 'f'.repeat(64) }, async () => charge);
  else await c.coordinate({ operation: 'op', key: 'n' + i, ttlMs: 3600000, codec, fingerprint: 'f'.repeat(64) }, async () => charge);
}
console.log(mode, Number(process.hrtime.bigint() - t0) / N / 1000, 'us/op', process.cpuUsage());
await store.close(); await client.quit(); await redis.close();
