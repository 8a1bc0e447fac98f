/** What the chain suites share: the Redis record of a payment of tenant a, and its state. */
import { idempotencyKeyDigest } from '@retry-safe/contracts';
import { waitFor } from '@retry-safe/testing';
import type { Redis } from 'ioredis';
import { DEMO_TENANTS, type Stack } from '@retry-safe/scenarios';

const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');

/** The Redis key of tenant a's payment record for `key` (payments' default prefix `idem:`). */
export function recordKeyOf(key: string): string {
  return `idem:payment.charge.${TENANT_A_HEX}:${key}`;
}

/** Runs `use` with a client of the stack's Redis, and closes it. */
export async function withRedis<T>(stack: Stack, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = stack.redis.client({ maxRetriesPerRequest: 1 });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** The state of tenant a's record for `key`: `<version>|<state>|...` (p pending, r released, c completed). */
export async function recordState(
  stack: Stack,
  key: string,
): Promise<'absent' | 'pending' | 'released' | 'completed'> {
  const raw = await withRedis(stack, (redis) => redis.get(recordKeyOf(key)));
  if (raw === null) return 'absent';
  const state = raw.split('|')[1];
  if (state === 'p') return 'pending';
  if (state === 'r') return 'released';
  if (state === 'c') return 'completed';
  throw new Error(`unknown record state in ${raw.slice(0, 40)}`);
}

/** One entry of a service's `GET /__requests` journal. */
export interface JournalEntry {
  service: string;
  route: string;
  idempotencyKeyDigest?: string;
  startedAt: number;
  endedAt: number;
  status: number | 'aborted';
}

/**
 * The journal entries of the service at `adminUrl` (its admin base URL) for `key` (quoted or bare): a journal keeps
 * only `idempotencyKeyDigest` of the key, so the key is compared by its digest.
 */
export async function journalOf(adminUrl: string, key: string): Promise<JournalEntry[]> {
  const res = await fetch(`${adminUrl}/__requests`);
  if (res.status !== 200) throw new Error(`GET ${adminUrl}/__requests answered ${res.status}`);
  const { requests } = (await res.json()) as { requests: JournalEntry[] };
  const digest = idempotencyKeyDigest(key);
  return requests.filter((entry) => entry.idempotencyKeyDigest === digest);
}

/** Resolves once tenant a's record for `key` holds a completed result (the charge finished and was stored). */
export async function stored(stack: Stack, key: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    `the payment with key ${key} completed and stored`,
    async () => {
      if ((await recordState(stack, key)) !== 'completed') throw new Error('not yet');
    },
    { timeoutMs },
  );
}
