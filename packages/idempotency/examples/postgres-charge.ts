import pg from 'pg';
import { IdempotencyCoordinator, fingerprintOf, jsonCodec } from '@retry-safe/idempotency';
import { PostgresIdempotencyStore } from '@retry-safe/idempotency/postgres';

interface Charge {
  id: string;
  amount: number;
}

const pool = new pg.Pool({ connectionString: 'postgres://localhost/app' });
const store = new PostgresIdempotencyStore(pool);
// Creates the table and its functions if absent; safe to run from every instance at start-up.
await store.migrate();
const coordinator = new IdempotencyCoordinator(store);

/** The same contract as on Redis: one execution per key, the stored result to every repeat. */
export async function charge(key: string, body: { amount: number; currency: string }): Promise<Charge> {
  return coordinator.coordinate(
    {
      operation: 'payment.charge',
      key,
      ttlMs: 24 * 60 * 60 * 1000,
      codec: jsonCodec<Charge>(),
      fingerprint: fingerprintOf({ ...body }),
    },
    async () => ({ id: `ch_${key}`, amount: body.amount }),
  );
}
