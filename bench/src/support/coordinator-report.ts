/** What `pnpm bench` (coordinator part) writes to bench/results/coordinator.json and prints. */
import { cpus, loadavg } from 'node:os';
import { CLIENT_VARIANTS, type LoadResult, type RedisLimit } from './load.js';
import { round, type LatencySummary } from './stats.js';

/** The run's settings, as the benchmark read them from its environment. */
export interface CoordinatorBenchSettings {
  samples: number;
  loadKeys: number;
  throughputMs: number;
  loadRounds: number;
  /** Goal of the load phase: first executions per second as a fraction of the Redis-side limit. */
  firstToLimitGoal: number;
}

/** The latencies measured interleaved in one run. */
export type Latencies = Record<
  'ping' | 'twoEvalsha' | 'first' | 'replay' | 'firstPipelined' | 'replayPipelined',
  LatencySummary
>;

/** The figures of the run as bench/results/coordinator.json holds them. */
export function resultsOf(
  settings: CoordinatorBenchSettings,
  { ping, twoEvalsha, first, replay, firstPipelined, replayPipelined }: Latencies,
  redisUsPerScriptCall: number,
  load: { redisLimit: RedisLimit; results: LoadResult[] },
  rest: { throughputOpsPerSecond: number; wakeUpMs: LatencySummary; recordBytes: number; sideKeys: number },
) {
  return {
    machine: { cpus: cpus().length, loadavg: loadavg().map((l) => round(l, 2)), node: process.version },
    samples: settings.samples,
    pingMs: ping,
    firstExecutionMs: first,
    replayMs: replay,
    twoNoopEvalshaMs: twoEvalsha,
    twoNoopEvalshaToPing: round(twoEvalsha.p50 / ping.p50, 2),
    redisUsPerScriptCall,
    firstToPing: round(first.p50 / ping.p50, 2),
    replayToPing: round(replay.p50 / ping.p50, 2),
    autoPipelining: {
      firstExecutionMs: firstPipelined,
      replayMs: replayPipelined,
      firstToPing: round(firstPipelined.p50 / ping.p50, 2),
      replayToPing: round(replayPipelined.p50 / ping.p50, 2),
    },
    load: {
      keysInFlight: settings.loadKeys,
      durationMs: settings.throughputMs,
      rounds: settings.loadRounds,
      ...load,
    },
    throughputOpsPerSecond: rest.throughputOpsPerSecond,
    wakeUpMs: rest.wakeUpMs,
    recordBytes: rest.recordBytes,
    sideKeys: rest.sideKeys,
    goals: {
      firstToPingAtMost: 2.5,
      replayToPingAtMost: 1.25,
      wakeUpP50UnderMs: 5,
      recordBytesAtMost: 512,
      loadFirstToRedisLimitAtLeast: settings.firstToLimitGoal,
    },
  };
}

export function printResults(
  settings: CoordinatorBenchSettings,
  results: ReturnType<typeof resultsOf>,
  latencies: Latencies,
): void {
  const { ping, twoEvalsha, first, replay, firstPipelined, replayPipelined } = latencies;
  const row = (name: string, s: LatencySummary, ratio?: number) =>
    `${name.padEnd(26)} p50 ${s.p50.toFixed(3).padStart(7)} ms   p99 ${s.p99.toFixed(3).padStart(7)} ms${ratio === undefined ? '' : `   ${ratio.toFixed(2)}x PING`}`;
  console.log(
    `\nretry-safe coordinator benchmark (${settings.samples} samples each, Node ${process.version}, load ${results.machine.loadavg.join(' ')})\n`,
  );
  console.log(row('Redis PING round trip', ping));
  console.log(row('2 no-op EVALSHA (floor)', twoEvalsha, results.twoNoopEvalshaToPing));
  console.log(row('first execution', first, results.firstToPing) + `   (goal <= 2.5x; floor 2x)`);
  console.log(row('replay', replay, results.replayToPing) + `   (goal <= 1.25x; floor 1x)`);
  const ap = results.autoPipelining;
  console.log(row('first, autopipelining', firstPipelined, ap.firstToPing) + `   (goal <= 2.5x)`);
  console.log(row('replay, autopipelining', replayPipelined, ap.replayToPing) + `   (goal <= 1.25x)`);
  console.log(`${'throughput, 64 keys'.padEnd(26)} ${results.throughputOpsPerSecond} first executions/s`);
  console.log(row('wait-mode wake-up', results.wakeUpMs) + `   (goal p50 < 5 ms)`);
  console.log(
    `${'Redis time per script'.padEnd(26)} ${results.redisUsPerScriptCall} µs per EVALSHA (the Lua and its commands)`,
  );
  console.log(
    `${'stored Charge record'.padEnd(26)} ${results.recordBytes} bytes in Redis (MEMORY USAGE), ${results.sideKeys} side keys   (goal <= 512)`,
  );
}

export function printLoad(
  settings: CoordinatorBenchSettings,
  load: readonly LoadResult[],
  limit: RedisLimit,
): void {
  console.log(
    `\nunder load: ${settings.loadKeys} keys in flight, ${settings.throughputMs} ms per window, mean of ${settings.loadRounds} alternating rounds`,
  );
  console.log(
    `${'Redis-side limit'.padEnd(26)} claim ${limit.usecPerClaim} µs + complete ${limit.usecPerComplete} µs -> ${limit.firstPerSecond} first executions/s; replay claim ${limit.usecPerReplayClaim} µs -> ${limit.replaysPerSecond} replays/s`,
  );
  for (const result of load) {
    const met = result.firstToLimit >= settings.firstToLimitGoal ? 'met' : 'missed';
    console.log(
      `${result.client.padEnd(26)} ${String(result.first.opsPerSecond).padStart(6)} first/s = ${result.firstToLimit.toFixed(2)} of the limit (goal >= ${settings.firstToLimitGoal}: ${met})   ${String(result.replay.opsPerSecond).padStart(6)} replays/s = ${result.replayToLimit.toFixed(2)} of the limit`,
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
