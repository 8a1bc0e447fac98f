import { Redis } from 'ioredis';
import { IdempotencyCoordinator, fingerprintOf, jsonCodec } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';

interface Charge {
  id: string;
  amount: number;
}

const redis = new Redis('redis://127.0.0.1:6379');
const coordinator = new IdempotencyCoordinator(new RedisIdempotencyStore(redis), { inFlight: 'raise' });

/** Charges once per key: a retry with the same key and body gets the first charge back, nothing is charged twice. */
export async function charge(key: string, body: { amount: number; currency: string }): Promise<Charge> {
  return coordinator.coordinate(
    {
      operation: 'payment.charge',
      key,
      ttlMs: 24 * 60 * 60 * 1000,
      codec: jsonCodec<Charge>(),
      // Without a fingerprint, a key reused with another body replays the first result instead of a 422.
      fingerprint: fingerprintOf({ ...body }),
    },
    async ({ signal }) => callProvider(body.amount, signal),
  );
}

declare function callProvider(amount: number, signal: AbortSignal): Promise<Charge>;
