import { Redis, type RedisOptions } from 'ioredis';
import { IdempotencyCoordinator, type CoordinateRequest } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { round } from './stats.js';
import { measureThroughput, redisUsecPerCall, type ThroughputResult } from './throughput.js';

/** One ioredis configuration the load phase runs the coordinator on. */
export interface ClientVariant {
  readonly name: string;
  readonly options: RedisOptions;
}

export const CLIENT_VARIANTS: readonly ClientVariant[] = [
  { name: 'ioredis defaults', options: {} },
  { name: 'enableAutoPipelining', options: { enableAutoPipelining: true } },
];

/** What Redis alone could do, from the time it spends inside each script (`INFO commandstats`). */
export interface RedisLimit {
  readonly usecPerClaim: number;
  readonly usecPerComplete: number;
  readonly usecPerReplayClaim: number;
  /** `1e6 / (claim + complete)`: first executions per second if Redis did nothing but run the two scripts. */
  readonly firstPerSecond: number;
  /** `1e6 / replay claim`. */
  readonly replaysPerSecond: number;
}

export interface LoadResult {
  readonly client: string;
  readonly first: ThroughputResult;
  readonly replay: ThroughputResult;
  /** Actions run during the replay window: must be 0, or the replays were not replays. */
  readonly replayExecutions: number;
  readonly firstToLimit: number;
  readonly replayToLimit: number;
}

export interface LoadPlan<T> {
  readonly url: string;
  readonly admin: Redis;
  readonly concurrency: number;
  readonly durationMs: number;
  /** Rounds per variant, alternating variants, so drift on a shared machine hits both; figures are means. */
  readonly rounds: number;
  readonly request: (key: string) => CoordinateRequest<T>;
  readonly action: () => Promise<T>;
  /** CPU time of the redis-server so far (µs), for CPU per op. */
  readonly redisCpu?: () => number | undefined;
}

/** Keys each replay worker cycles over (primed first, so every call in the window is a replay). */
const REPLAY_KEYS_PER_WORKER = 4;

/** The Redis-side limit, from direct store calls: N claims on fresh keys, their N completions, N replay claims. */
export async function measureRedisLimit<T>(plan: LoadPlan<T>, calls = 2_000): Promise<RedisLimit> {
  const client = new Redis(plan.url);
  const store = new RedisIdempotencyStore(client, { keyPrefix: 'bench-limit:' });
  try {
    const probe = plan.request('probe');
    const payload = probe.codec.encode(await plan.action());
    const ids = Array.from({ length: calls }, (_, i) => ({ operation: probe.operation, key: `limit-${i}` }));
    const claim = (id: (typeof ids)[number], owner: string) =>
      store.claim({
        ...id,
        owner,
        fingerprint: probe.fingerprint ?? '',
        leaseMs: 30_000,
        retainMs: probe.ttlMs,
      });
    const usecPerClaim = await redisUsecPerCall(plan.admin, 'evalsha', async () => {
      for (const id of ids) await claim(id, `owner-${id.key}`);
    });
    const usecPerComplete = await redisUsecPerCall(plan.admin, 'evalsha', async () => {
      for (const id of ids)
        await store.complete({ ...id, owner: `owner-${id.key}`, payload, ttlMs: probe.ttlMs });
    });
    const usecPerReplayClaim = await redisUsecPerCall(plan.admin, 'evalsha', async () => {
      for (const id of ids) await claim(id, `replayer-${id.key}`);
    });
    return {
      usecPerClaim: round(usecPerClaim, 2),
      usecPerComplete: round(usecPerComplete, 2),
      usecPerReplayClaim: round(usecPerReplayClaim, 2),
      firstPerSecond: Math.round(1e6 / (usecPerClaim + usecPerComplete)),
      replaysPerSecond: Math.round(1e6 / usecPerReplayClaim),
    };
  } finally {
    await store.close();
    await client.quit();
  }
}

/**
 * First executions (fresh keys) and replays per second with `concurrency` calls in flight, for each
 * {@link CLIENT_VARIANTS} entry, as fractions of the Redis-side limit measured in the same run.
 */
export async function measureUnderLoad<T>(plan: LoadPlan<T>, limit: RedisLimit): Promise<LoadResult[]> {
  const rounds = new Map<
    string,
    { first: ThroughputResult; replay: ThroughputResult; executions: number }[]
  >();
  for (let r = 0; r < plan.rounds; r++) {
    for (const variant of CLIENT_VARIANTS) {
      const list = rounds.get(variant.name) ?? [];
      list.push(await oneRound(plan, variant, `r${r}`));
      rounds.set(variant.name, list);
    }
  }
  return CLIENT_VARIANTS.map((variant) => {
    const list = rounds.get(variant.name)!;
    const first = meanOf(list.map((x) => x.first));
    const replay = meanOf(list.map((x) => x.replay));
    return {
      client: variant.name,
      first,
      replay,
      replayExecutions: list.reduce((sum, x) => sum + x.executions, 0),
      firstToLimit: round(first.opsPerSecond / limit.firstPerSecond, 2),
      replayToLimit: round(replay.opsPerSecond / limit.replaysPerSecond, 2),
    };
  });
}

async function oneRound<T>(plan: LoadPlan<T>, variant: ClientVariant, tag: string) {
  const client = new Redis(plan.url, variant.options);
  const store = new RedisIdempotencyStore(client, { keyPrefix: 'bench-load:' });
  const coordinator = new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 });
  const prefix = `${variant.options.enableAutoPipelining ? 'ap' : 'df'}-${tag}`;
  let executions = 0;
  const counted = () => ((executions += 1), plan.action());
  try {
    for (let i = 0; i < 500; i++) await coordinator.coordinate(plan.request(`${prefix}-warm-${i}`), counted);
    const first = await measureThroughput(
      plan.concurrency,
      plan.durationMs,
      (w, i) => coordinator.coordinate(plan.request(`${prefix}-first-${w}-${i}`), plan.action),
      plan.redisCpu,
    );
    const replayKey = (w: number, i: number) => `${prefix}-replay-${w}-${i % REPLAY_KEYS_PER_WORKER}`;
    for (let w = 0; w < plan.concurrency; w++) {
      for (let i = 0; i < REPLAY_KEYS_PER_WORKER; i++) {
        await coordinator.coordinate(plan.request(replayKey(w, i)), plan.action);
      }
    }
    executions = 0;
    const replay = await measureThroughput(
      plan.concurrency,
      plan.durationMs,
      (w, i) => coordinator.coordinate(plan.request(replayKey(w, i)), counted),
      plan.redisCpu,
    );
    return { first, replay, executions };
  } finally {
    await store.close();
    await client.quit();
  }
}

function meanOf(results: readonly ThroughputResult[]): ThroughputResult {
  const mean = (pick: (r: ThroughputResult) => number) =>
    Math.round(results.reduce((sum, r) => sum + pick(r), 0) / results.length);
  return {
    concurrency: results[0]!.concurrency,
    durationMs: mean((r) => r.durationMs),
    ops: mean((r) => r.ops),
    opsPerSecond: mean((r) => r.opsPerSecond),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    nodeCpuUsPerOp: round(results.reduce((sum, r) => sum + r.nodeCpuUsPerOp, 0) / results.length, 2),
    redisCpuUsPerOp: results.every((r) => r.redisCpuUsPerOp !== undefined)
      ? round(results.reduce((sum, r) => sum + r.redisCpuUsPerOp!, 0) / results.length, 2)
      : undefined,
  };
}
