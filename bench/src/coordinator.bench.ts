/**
 * `pnpm bench`: the coordinator against the physical floor, on a private redis-server, in one run.
 *
 * Prints the raw Redis PING round trip p50, then coordinate() first execution and replay p50/p99 and their ratio
 * to that PING (the floor is 2x for a first execution: claim + complete; 1x for a replay: one claim), throughput
 * at 64 concurrent distinct keys, wait-mode wake-up latency, and bytes per stored record (MEMORY USAGE).
 * Writes the same figures to bench/results/coordinator.json.
 *
 * Environment (optional): BENCH_SAMPLES (default 5000), BENCH_THROUGHPUT_MS (default 3000).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { IdempotencyCoordinator, fingerprintOf, jsonCodec } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';
import { startPrivateRedisServer } from '@retry-safe/testing';
import { round, summarise, type LatencySummary } from './support/stats.js';

const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 5_000);
const THROUGHPUT_MS = Number(process.env['BENCH_THROUGHPUT_MS'] ?? 3_000);
const WAKE_SAMPLES = Math.min(500, SAMPLES);

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

async function measureInterleaved(
  n: number,
  fns: readonly ((i: number) => Promise<unknown>)[],
): Promise<LatencySummary[]> {
  const durations = fns.map((): bigint[] => []);
  for (let i = 0; i < n; i++) {
    for (const [j, fn] of fns.entries()) {
      const started = process.hrtime.bigint();
      await fn(i);
      durations[j]!.push(process.hrtime.bigint() - started);
    }
  }
  return durations.map((d) => summarise(d));
}

async function main(): Promise<void> {
  const redis = await startPrivateRedisServer();
  const client = new Redis(redis.url);
  const store = new RedisIdempotencyStore(client, { keyPrefix: 'bench:' });
  const coordinator = new IdempotencyCoordinator(store, { inFlight: 'raise', leaseMs: 30_000 });
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
    }

    // Interleaved (PING, first execution, replay, PING, ...) so the three see the same machine load: the ratios
    // compare like with like even when other processes come and go.
    // The floor of a first execution through this client: two EVALSHA round trips of a script that does nothing.
    const noop = String(await client.script('LOAD', 'return 1'));
    const [ping, twoEvalsha, first, replay] = (await measureInterleaved(SAMPLES, [
      () => client.ping(),
      async () => {
        await client.evalsha(noop, 1, 'bench:noop', 'a', 'b', 'c', 'd', 'e');
        await client.evalsha(noop, 1, 'bench:noop', 'a', 'b', 'c', 'd');
      },
      (i) => coordinator.coordinate(request(`first-${i}`), action),
      (i) => coordinator.coordinate(request(`first-${i}`), action),
    ])) as [LatencySummary, LatencySummary, LatencySummary, LatencySummary];
    // Time Redis itself spends per script call (Lua and the commands it runs), from INFO commandstats.
    await client.config('RESETSTAT');
    for (let i = 0; i < 1_000; i++) await coordinator.coordinate(request(`stat-${i}`), action);
    const evalshaUsPerCall = Number(
      /cmdstat_evalsha:.*usec_per_call=([\d.]+)/.exec(await client.info('commandstats'))?.[1],
    );

    // Throughput: 64 workers, each running fresh keys back to back.
    let done = 0;
    const until = Date.now() + THROUGHPUT_MS;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 64 }, async (_, worker) => {
        for (let i = 0; Date.now() < until; i++) {
          await coordinator.coordinate(request(`tp-${worker}-${i}`), action);
          done += 1;
        }
      }),
    );
    const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
    const opsPerSecond = done / elapsedS;

    // Wake-up: a waiter (another store, as in another process) blocks on a key; the owner completes; time from
    // the owner's completion returning to the waiter's result.
    const waiterStore = new RedisIdempotencyStore(client, { keyPrefix: 'bench:' });
    const waiter = new IdempotencyCoordinator(waiterStore, { inFlight: 'wait', leaseMs: 30_000 });
    const wakeNs: bigint[] = [];
    for (let i = 0; i < WAKE_SAMPLES; i++) {
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => (release = r));
      let ownerDone = 0n;
      const owner = coordinator
        .coordinate(request(`wake-${i}`), async () => {
          await gate;
          return charge;
        })
        .then(() => (ownerDone = process.hrtime.bigint()));
      await sleep(0);
      const waiting = waiter.coordinate(request(`wake-${i}`), action).then(() => process.hrtime.bigint());
      await sleep(2); // let the waiter subscribe and settle into its sleep
      release();
      const [, waiterDone] = await Promise.all([owner, waiting]);
      wakeNs.push(waiterDone > ownerDone ? waiterDone - ownerDone : 0n);
    }
    await waiterStore.close();
    const wake = summarise(wakeNs);

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
      throughputOpsPerSecond: Math.round(opsPerSecond),
      wakeUpMs: wake,
      recordBytes: memoryBytes,
      sideKeys: sideKeys.length,
      goals: {
        firstToPingAtMost: 2.5,
        replayToPingAtMost: 1.25,
        wakeUpP50UnderMs: 5,
        recordBytesAtMost: 512,
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
    console.log(`${'throughput, 64 keys'.padEnd(26)} ${results.throughputOpsPerSecond} first executions/s`);
    console.log(row('wait-mode wake-up', wake) + `   (goal p50 < 5 ms)`);
    console.log(
      `${'Redis time per script'.padEnd(26)} ${evalshaUsPerCall} µs per EVALSHA (the Lua and its commands)`,
    );
    console.log(
      `${'stored Charge record'.padEnd(26)} ${memoryBytes} bytes in Redis (MEMORY USAGE), ${sideKeys.length} side keys   (goal <= 512)`,
    );

    await mkdir(new URL('../results/', import.meta.url), { recursive: true });
    await writeFile(
      new URL('../results/coordinator.json', import.meta.url),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.log('\nwritten to bench/results/coordinator.json');
  } finally {
    await store.close();
    await client.quit();
    await redis.close();
  }
}

await main();
