/**
 * `pnpm bench`: the coordinator against the physical floor, on a private redis-server, in one run.
 *
 * Prints the raw Redis PING round trip p50, then coordinate() first execution and replay p50/p99 and their ratio
 * to that PING (the floor is 2x for a first execution: claim + complete; 1x for a replay: one claim), throughput
 * at 64 concurrent distinct keys, wait-mode wake-up latency, and bytes per stored record (MEMORY USAGE). Then
 * the load phase: first executions and replays per second with 256 keys in flight, on ioredis' defaults and
 * with `enableAutoPipelining`, against the Redis-side limit from `INFO commandstats` (µs per claim and per
 * complete) measured in the same run. Writes the same figures to bench/results/coordinator.json.
 *
 * Environment (optional): BENCH_SAMPLES (default 5000), BENCH_THROUGHPUT_MS (default 3000),
 * BENCH_LOAD_ROUNDS (default 2).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import {
  IdempotencyCoordinator,
  fingerprintOf,
  jsonCodec,
  type CoordinateRequest,
} from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { startPrivateRedisServer } from '@retry-safe/testing';
import {
  printLoad,
  printResults,
  resultsOf,
  type CoordinatorBenchSettings,
  type Latencies,
} from './support/coordinator-report.js';
import {
  measureRedisLimit,
  measureUnderLoad,
  type LoadPlan,
  type LoadResult,
  type RedisLimit,
} from './support/load.js';
import { measureInterleaved, type LatencySummary } from './support/stats.js';
import { measureThroughput, redisCpuReader } from './support/throughput.js';
import { measureWakeUp } from './support/wake-up.js';
import { positiveInt } from './support/env.js';

const SAMPLES = positiveInt('BENCH_SAMPLES', 5_000);
const THROUGHPUT_MS = positiveInt('BENCH_THROUGHPUT_MS', 3_000);
const WAKE_SAMPLES = Math.min(500, SAMPLES);
const LOAD_KEYS = 256;
const LOAD_ROUNDS = positiveInt('BENCH_LOAD_ROUNDS', 2);
/** Goal of the load phase: first executions per second as a fraction of the Redis-side limit. */
const FIRST_TO_LIMIT_GOAL = 0.6;
const SETTINGS: CoordinatorBenchSettings = {
  samples: SAMPLES,
  loadKeys: LOAD_KEYS,
  throughputMs: THROUGHPUT_MS,
  loadRounds: LOAD_ROUNDS,
  firstToLimitGoal: FIRST_TO_LIMIT_GOAL,
};

interface Charge {
  id: string;
  orderId: string;
  amount: number;
  currency: string;
  status: string;
  providerChargeId: string;
}

const charge: Charge = {
  id: '6f1c2a8e-3b7d-4f0e-9a51-2c8d7e6b4f10',
  orderId: '0d6b1f4e-8c2a-4e7b-9f3d-5a1c7e2b8d40',
  amount: 4999,
  currency: 'EUR',
  status: 'succeeded',
  providerChargeId: 'ch_1042',
};
const codec = jsonCodec<Charge>();
const fingerprint = fingerprintOf({
  orderId: charge.orderId,
  amount: charge.amount,
  currency: charge.currency,
});

const request = (key: string): CoordinateRequest<Charge> => ({
  operation: 'payment.charge.6f1c2a8e3b7d4f0e9a512c8d7e6b4f10',
  key,
  ttlMs: 3_600_000,
  codec,
  fingerprint,
});
const action = async () => charge;

/** The clients of one run: a coordinator on ioredis' defaults and one with `enableAutoPipelining`. */
interface Bench {
  readonly url: string;
  readonly client: Redis;
  readonly coordinator: IdempotencyCoordinator;
  readonly pipelined: IdempotencyCoordinator;
  close(): Promise<void>;
}

function openBench(url: string): Bench {
  const client = new Redis(url);
  const store = new RedisIdempotencyStore(client, { keyPrefix: 'bench:' });
  // ioredis' enableAutoPipelining, for comparison: latency and throughput with it, in the same run.
  const pipelinedClient = new Redis(url, { enableAutoPipelining: true });
  const pipelinedStore = new RedisIdempotencyStore(pipelinedClient, { keyPrefix: 'bench:' });
  return {
    url,
    client,
    coordinator: new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 }),
    pipelined: new IdempotencyCoordinator(pipelinedStore, { inFlight: 'raise', leaseMs: 30_000 }),
    close: async () => {
      await store.close();
      await pipelinedStore.close();
      await pipelinedClient.quit();
      await client.quit();
    },
  };
}

/** Warm-up: JIT, connection, script cache. */
async function warmUp({ client, coordinator, pipelined }: Bench): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    await client.ping();
    await coordinator.coordinate(request(`warm-${i}`), action);
    await coordinator.coordinate(request(`warm-${i}`), action);
    await pipelined.coordinate(request(`warm-ap-${i}`), action);
    await pipelined.coordinate(request(`warm-ap-${i}`), action);
  }
}

/**
 * Interleaved (PING, first execution, replay, PING, ...) so all see the same machine load: the ratios compare like
 * with like even when other processes come and go.
 */
async function measureLatencies({ client, coordinator, pipelined }: Bench): Promise<Latencies> {
  // The floor of a first execution through this client: two EVALSHA round trips of a script that does nothing.
  const noop = String(await client.script('LOAD', 'return 1'));
  const [ping, twoEvalsha, first, replay, firstPipelined, replayPipelined] = await measureInterleaved(
    SAMPLES,
    [
      () => client.ping(),
      async () => {
        await client.evalsha(noop, 1, 'bench:noop', 'a', 'b', 'c', 'd', 'e');
        await client.evalsha(noop, 1, 'bench:noop', 'a', 'b', 'c', 'd');
      },
      (i) => coordinator.coordinate(request(`first-${i}`), action),
      (i) => coordinator.coordinate(request(`first-${i}`), action),
      (i) => pipelined.coordinate(request(`first-ap-${i}`), action),
      (i) => pipelined.coordinate(request(`first-ap-${i}`), action),
    ],
  );
  return { ping, twoEvalsha, first, replay, firstPipelined, replayPipelined } as Latencies;
}

/** Time Redis itself spends per script call (Lua and the commands it runs), from INFO commandstats. */
async function redisUsPerScriptCall({ client, coordinator }: Bench): Promise<number> {
  await client.config('RESETSTAT');
  for (let i = 0; i < 1_000; i++) await coordinator.coordinate(request(`stat-${i}`), action);
  return Number(/cmdstat_evalsha:.*usec_per_call=([\d.]+)/.exec(await client.info('commandstats'))?.[1]);
}

/** The load phase: the Redis-side limit, then both client variants against it. */
async function loadPhase({ url, client }: Bench): Promise<{ redisLimit: RedisLimit; results: LoadResult[] }> {
  const loadPlan: LoadPlan<Charge> = {
    url,
    admin: client,
    concurrency: LOAD_KEYS,
    durationMs: THROUGHPUT_MS,
    rounds: LOAD_ROUNDS,
    request,
    action,
    redisCpu: await redisCpuReader(client),
  };
  const redisLimit = await measureRedisLimit(loadPlan);
  return { redisLimit, results: await measureUnderLoad(loadPlan, redisLimit) };
}

/** Bytes of one stored record, and the keys the coordinator wrote besides its one record per key (none expected). */
async function storage({ client }: Bench): Promise<{ recordBytes: number; sideKeys: number }> {
  const recordBytes = Number(
    await client.memory('USAGE', `bench:${request('first-0').operation}:first-0`, 'SAMPLES', 0),
  );
  const recordPrefix = `bench:${request('x').operation}:`;
  const sideKeys = (await client.keys('bench:*')).filter((k) => !k.startsWith(recordPrefix));
  return { recordBytes, sideKeys: sideKeys.length };
}

async function main(): Promise<void> {
  const redis = await startPrivateRedisServer();
  const bench = openBench(redis.url);
  try {
    await warmUp(bench);
    const latencies = await measureLatencies(bench);
    const redisUsPerScript = await redisUsPerScriptCall(bench);
    // Throughput: 64 workers, each running fresh keys back to back.
    const { opsPerSecond } = await measureThroughput(64, THROUGHPUT_MS, (worker, i) =>
      bench.coordinator.coordinate(request(`tp-${worker}-${i}`), action),
    );
    const wake = await wakeUp(bench.client, bench.coordinator);
    const load = await loadPhase(bench);
    const stored = await storage(bench);

    const results = resultsOf(SETTINGS, latencies, redisUsPerScript, load, {
      throughputOpsPerSecond: Math.round(opsPerSecond),
      wakeUpMs: wake,
      ...stored,
    });
    printResults(SETTINGS, results, latencies);
    printLoad(SETTINGS, load.results, load.redisLimit);
    await mkdir(new URL('../results/', import.meta.url), { recursive: true });
    await writeFile(
      new URL('../results/coordinator.json', import.meta.url),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.log('\nwritten to bench/results/coordinator.json');
  } finally {
    await bench.close();
    await redis.close();
  }
}

/** Wait-mode wake-up; the waiter is another store (another process), woken by its sharded subscription. */
async function wakeUp(client: Redis, owner: IdempotencyCoordinator): Promise<LatencySummary> {
  const waiterStore = new RedisIdempotencyStore(client, { keyPrefix: 'bench:' });
  try {
    return await measureWakeUp({
      samples: WAKE_SAMPLES,
      owner,
      waiter: new IdempotencyCoordinator(waiterStore, { inFlight: 'wait', leaseMs: 30_000 }),
      request,
      result: () => charge,
      settleMs: 2,
    });
  } finally {
    await waiterStore.close();
  }
}

await main();
