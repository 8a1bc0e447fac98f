import { Redis } from 'ioredis';
import { IdempotencyCoordinator, RedisIdempotencyStore, jsonCodec } from '@retry-safe/idempotency';
import { startPrivateRedisServer } from '@retry-safe/testing';
const redis = await startPrivateRedisServer();
const client = new Redis(redis.url);
const store = new RedisIdempotencyStore(client, { keyPrefix: 'b:' });
const c = new IdempotencyCoordinator(store, { inFlight: 'raise' });
const codec = jsonCodec();
const charge = { id: 'x'.repeat(36), orderId: 'y'.repeat(36), amount: 4999, currency: 'EUR', status: 'succeeded', providerChargeId: 'ch_1042' };
const req = { operation: 'op', key: 'k1', ttlMs: 3600000, codec, fingerprint: 'f'.repeat(64) };
await c.coordinate(req, async () => charge);
const sha = (await client.script('LOAD', 'return 1'));
const modes = {
  ping: () => client.ping(),
  evalshaTrivial: () => client.evalsha(sha, 1, 'b:op:k1', 'a', 'b', 'c', 'd', 'e'),
  storeClaim: () => store.claim({ operation: 'op', key: 'k1', owner: 'o', fingerprint: 'f'.repeat(64), leaseMs: 30000, retainMs: 3600000 }),
  replay: () => c.coordinate(req, async () => charge),
};
for (const [name, fn] of Object.entries(modes)) {
  for (let i = 0; i < 3000; i++) await fn();
  const N = 10000; const cpu0 = process.cpuUsage(); const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn();
  const wall = Number(process.hrtime.bigint() - t0) / N / 1000; const cpu = process.cpuUsage(cpu0);
  console.log(name.padEnd(16), 'wall', wall.toFixed(1), 'us  node cpu', ((cpu.user + cpu.system) / N).toFixed(1), 'us');
}
const info = await client.info('commandstats'); console.log(info.split('\n').filter(l => /evalsha|ping/.test(l)).join('\n'));
await store.close(); await client.quit(); await redis.close();
