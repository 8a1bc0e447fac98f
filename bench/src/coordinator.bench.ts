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
import { cpus, loadavg } from 'node:os';
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
  CLIENT_VARIANTS,
  measureRedisLimit,
  measureUnderLoad,
  type LoadPlan,
  type LoadResult,
  type RedisLimit,
} from './support/load.js';
import { measureInterleaved, round, type LatencySummary } from './support/stats.js';
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

async function main(): Promise<void> {
  const redis = await startPrivateRedisServer();
  const client = new Redis(redis.url);
  const store = new RedisIdempotencyStore(client, { keyPrefix: 'bench:' });
  const coordinator = new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 });
  // ioredis' enableAutoPipelining, for comparison: latency and throughput with it, in the same run.
  const pipelinedClient = new Redis(redis.url, { enableAutoPipelining: true });
  const pipelinedStore = new RedisIdempotencyStore(pipelinedClient, { keyPrefix: 'bench:' });
  const pipelined = new IdempotencyCoordinator(pipelinedStore, { inFlight: 'raise', leaseMs: 30_000 });
  const request = (key: string) => ({
    operation: 'payment.charge.6f1c2a8e3b7d4f0e9a512c8d7e6b4f10',
    key,
    ttlMs: 3_600_000,
    codec,
    fingerprint,
  });
  const action = async () => charge;

  try {
    // Warm-up: JIT, connection, script cache.
    for (let i = 0; i < 2_000; i++) {
      await client.ping();
      await coordinator.coordinate(request(`warm-${i}`), action);
      await coordinator.coordinate(request(`warm-${i}`), action);
      await pipelined.coordinate(request(`warm-ap-${i}`), action);
      await pipelined.coordinate(request(`warm-ap-${i}`), action);
    }

    // Interleaved (PING, first execution, replay, PING, ...) so the three see the same machine load: the ratios
    // compare like with like even when other processes come and go.
    // The floor of a first execution through this client: two EVALSHA round trips of a script that does nothing.
    const noop = String(await client.script('LOAD', 'return 1'));
    const [ping, twoEvalsha, first, replay, firstPipelined, replayPipelined] = (await measureInterleaved(
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
    )) as LatencySummary[] as [
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
    ];
    // Time Redis itself spends per script call (Lua and the commands it runs), from INFO commandstats.
    await client.config('RESETSTAT');
    for (let i = 0; i < 1_000; i++) await coordinator.coordinate(request(`stat-${i}`), action);
    const evalshaUsPerCall = Number(
      /cmdstat_evalsha:.*usec_per_call=([\d.]+)/.exec(await client.info('commandstats'))?.[1],
    );

    // Throughput: 64 workers, each running fresh keys back to back.
    const { opsPerSecond } = await measureThroughput(64, THROUGHPUT_MS, (worker, i) =>
      coordinator.coordinate(request(`tp-${worker}-${i}`), action),
    );

    const wake = await wakeUp(client, coordinator, request);

    const loadPlan: LoadPlan<Charge> = {
      url: redis.url,
      admin: client,
      concurrency: LOAD_KEYS,
      durationMs: THROUGHPUT_MS,
      rounds: LOAD_ROUNDS,
      request,
      action,
      redisCpu: await redisCpuReader(client),
    };
    const redisLimit = await measureRedisLimit(loadPlan);
    const load = await measureUnderLoad(loadPlan, redisLimit);

    const memoryBytes = Number(
      await client.memory('USAGE', `bench:${request('first-0').operation}:first-0`, 'SAMPLES', 0),
    );
    // Anything the coordinator wrote besides its one record per key would show up here.
    const recordPrefix = `bench:${request('x').operation}:`;
    const sideKeys = (await client.keys('bench:*')).filter((k) => !k.startsWith(recordPrefix));

    const results = {
      machine: { cpus: cpus().length, loadavg: loadavg().map((l) => round(l, 2)), node: process.version },
      samples: SAMPLES,
      pingMs: ping,
      firstExecutionMs: first,
      replayMs: replay,
      twoNoopEvalshaMs: twoEvalsha,
      twoNoopEvalshaToPing: round(twoEvalsha.p50 / ping.p50, 2),
      redisUsPerScriptCall: evalshaUsPerCall,
      firstToPing: round(first.p50 / ping.p50, 2),
      replayToPing: round(replay.p50 / ping.p50, 2),
      autoPipelining: {
        firstExecutionMs: firstPipelined,
        replayMs: replayPipelined,
        firstToPing: round(firstPipelined.p50 / ping.p50, 2),
        replayToPing: round(replayPipelined.p50 / ping.p50, 2),
      },
      load: {
        keysInFlight: LOAD_KEYS,
        durationMs: THROUGHPUT_MS,
        rounds: LOAD_ROUNDS,
        redisLimit,
        results: load,
      },
      throughputOpsPerSecond: Math.round(opsPerSecond),
      wakeUpMs: wake,
      recordBytes: memoryBytes,
      sideKeys: sideKeys.length,
      goals: {
        firstToPingAtMost: 2.5,
        replayToPingAtMost: 1.25,
        wakeUpP50UnderMs: 5,
        recordBytesAtMost: 512,
        loadFirstToRedisLimitAtLeast: FIRST_TO_LIMIT_GOAL,
      },
    };

    const row = (name: string, s: LatencySummary, ratio?: number) =>
      `${name.padEnd(26)} p50 ${s.p50.toFixed(3).padStart(7)} ms   p99 ${s.p99.toFixed(3).padStart(7)} ms${ratio === undefined ? '' : `   ${ratio.toFixed(2)}x PING`}`;
    console.log(
      `\nretry-safe coordinator benchmark (${SAMPLES} samples each, Node ${process.version}, load ${results.machine.loadavg.join(' ')})\n`,
    );
    console.log(row('Redis PING round trip', ping));
    console.log(row('2 no-op EVALSHA (floor)', twoEvalsha, results.twoNoopEvalshaToPing));
    console.log(row('first execution', first, results.firstToPing) + `   (goal <= 2.5x; floor 2x)`);
    console.log(row('replay', replay, results.replayToPing) + `   (goal <= 1.25x; floor 1x)`);
    const ap = results.autoPipelining;
    console.log(row('first, autopipelining', firstPipelined, ap.firstToPing) + `   (goal <= 2.5x)`);
    console.log(row('replay, autopipelining', replayPipelined, ap.replayToPing) + `   (goal <= 1.25x)`);
    console.log(`${'throughput, 64 keys'.padEnd(26)} ${results.throughputOpsPerSecond} first executions/s`);
    console.log(row('wait-mode wake-up', wake) + `   (goal p50 < 5 ms)`);
    console.log(
      `${'Redis time per script'.padEnd(26)} ${evalshaUsPerCall} µs per EVALSHA (the Lua and its commands)`,
    );
    console.log(
      `${'stored Charge record'.padEnd(26)} ${memoryBytes} bytes in Redis (MEMORY USAGE), ${sideKeys.length} side keys   (goal <= 512)`,
    );

    printLoad(load, redisLimit);

    await mkdir(new URL('../results/', import.meta.url), { recursive: true });
    await writeFile(
      new URL('../results/coordinator.json', import.meta.url),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.log('\nwritten to bench/results/coordinator.json');
  } finally {
    await store.close();
    await pipelinedStore.close();
    await pipelinedClient.quit();
    await client.quit();
    await redis.close();
  }
}

/** Wait-mode wake-up; the waiter is another store (another process), woken by its sharded subscription. */
async function wakeUp(
  client: Redis,
  owner: IdempotencyCoordinator,
  request: (key: string) => CoordinateRequest<Charge>,
): Promise<LatencySummary> {
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

function printLoad(load: readonly LoadResult[], limit: RedisLimit): void {
  console.log(
    `\nunder load: ${LOAD_KEYS} keys in flight, ${THROUGHPUT_MS} ms per window, mean of ${LOAD_ROUNDS} alternating rounds`,
  );
  console.log(
    `${'Redis-side limit'.padEnd(26)} claim ${limit.usecPerClaim} µs + complete ${limit.usecPerComplete} µs -> ${limit.firstPerSecond} first executions/s; replay claim ${limit.usecPerReplayClaim} µs -> ${limit.replaysPerSecond} replays/s`,
  );
  for (const result of load) {
    const met = result.firstToLimit >= FIRST_TO_LIMIT_GOAL ? 'met' : 'missed';
    console.log(
      `${result.client.padEnd(26)} ${String(result.first.opsPerSecond).padStart(6)} first/s = ${result.firstToLimit.toFixed(2)} of the limit (goal >= ${FIRST_TO_LIMIT_GOAL}: ${met})   ${String(result.replay.opsPerSecond).padStart(6)} replays/s = ${result.replayToLimit.toFixed(2)} of the limit`,
    );
    console.log(
      `${''.padEnd(26)} CPU per first execution: Node ${result.first.nodeCpuUsPerOp} µs, Redis ${result.first.redisCpuUsPerOp ?? 'n/a'} µs; per replay: Node ${result.replay.nodeCpuUsPerOp} µs, Redis ${result.replay.redisCpuUsPerOp ?? 'n/a'} µs`,
    );
    if (result.first.errors + result.replay.errors > 0 || result.replayExecutions > 0) {
      console.log(
        `  WARNING: ${result.first.errors + result.replay.errors} errors, ${result.replayExecutions} actions ran during replays`,
      );
    }
  }
  const [plain, pipelined] = CLIENT_VARIANTS.map((v) => load.find((r) => r.client === v.name)!);
  if (plain && pipelined) {
    console.log(
      `${'autopipelining / defaults'.padEnd(26)} ${round(pipelined.first.opsPerSecond / plain.first.opsPerSecond, 2)}x first executions, ${round(pipelined.replay.opsPerSecond / plain.replay.opsPerSecond, 2)}x replays`,
    );
  }
}

await main();
