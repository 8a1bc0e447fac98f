/** The latency, command and throughput phases of `pnpm bench:peers`, every library interleaved. */
import { newCharge, type Charge, type ChargeAction, type Peer } from '../peers/peer.js';
import { measureContention, measureStaleOwner } from './peer-races.js';
import {
  freshKey,
  instantCharge,
  PLAN,
  REPLAY_KEYS_PER_WORKER,
  Role,
  type Library,
  type LibraryResult,
  type PerCallCommands,
} from './peer-plan.js';
import type { CommandCount, RedisCommandCounter } from './redis-commands.js';
import { round, summarise } from './stats.js';
import { measureThroughput, type ThroughputResult } from './throughput.js';

export type Measured = Omit<LibraryResult, 'staleOwner' | 'staleOwnerWithRenewal' | 'ratioToOurs'>;

/**
 * Latency is measured in interleaved rounds (every library takes a turn in each round, in a rotating order) so
 * that drift on a shared machine (CPU frequency, other processes) spreads over all rows instead of landing on
 * whichever library happened to run at that moment. Commands, throughput and contention run one library at a
 * time, as they load the machine.
 */
export async function measureAll(
  libraries: readonly Library[],
  redisUrl: string,
  counter: RedisCommandCounter,
  flush: () => Promise<void>,
  redisCpu: () => number | undefined,
): Promise<LibraryResult[]> {
  const peers = libraries.map((library) => ({ library, peer: library.create() }));
  const measured = new Map<string, Measured>();
  try {
    for (const { peer } of peers) await peer.setup(redisUrl, PLAN.settings);
    await warmUp(peers);
    const { first, replay, replayExecutions } = await measureLatency(peers);

    const throughput = await measureAllThroughput(peers, flush, redisCpu);
    for (const { library, peer } of peers) {
      console.error(`  ${library.id}: commands, contention`);
      await flush();
      const commands = await countCommands(peer, counter);
      const contention = await measureContention(peer);
      measured.set(library.id, {
        id: library.id,
        name: peer.name,
        role: library.role,
        recommended: library.recommended ?? false,
        capabilities: peer.capabilities,
        first: summarise(first.get(library.id)!),
        replay: summarise(replay.get(library.id)!),
        replayExecutions: replayExecutions.get(library.id)!,
        commands,
        ...throughput.get(library.id)!,
        contention,
      });
    }
  } finally {
    for (const { peer } of peers) await peer.close();
  }

  const results: LibraryResult[] = [];
  for (const library of libraries) {
    console.error(`  ${library.id}: stale owner`);
    const staleOwner = await measureStaleOwner(library.createForStaleOwner(), redisUrl);
    const staleOwnerWithRenewal =
      library.role === Role.Ours ? await measureStaleOwner(library.create(), redisUrl) : undefined;
    results.push({
      ...measured.get(library.id)!,
      staleOwner,
      ...(staleOwnerWithRenewal ? { staleOwnerWithRenewal } : {}),
    });
  }
  return results;
}

type Running = readonly { readonly library: Library; readonly peer: Peer }[];

/** JIT, connection buffers, script cache (NOSCRIPT -> EVAL happens here, not in the samples). */
async function warmUp(peers: Running): Promise<void> {
  console.error('  warm-up');
  for (const { peer } of peers) {
    const warmKeys = Array.from({ length: PLAN.warmup }, () => freshKey('warm'));
    for (const key of warmKeys) await peer.execute(key, instantCharge);
    for (const key of warmKeys) await peer.execute(key, instantCharge);
    await peer.drain?.();
  }
}

/** First executions on fresh keys, then replays of those keys, per library; in interleaved rounds. */
async function measureLatency(peers: Running) {
  console.error(`  latency, ${PLAN.latencyRounds} interleaved rounds`);
  const first = new Map<string, bigint[]>(peers.map(({ library }) => [library.id, []]));
  const replay = new Map<string, bigint[]>(peers.map(({ library }) => [library.id, []]));
  const replayExecutions = new Map<string, number>(peers.map(({ library }) => [library.id, 0]));
  const perRound = Math.ceil(PLAN.samples / PLAN.latencyRounds);
  for (let round = 0; round < PLAN.latencyRounds; round++) {
    for (let turn = 0; turn < peers.length; turn++) {
      const { library, peer } = peers[(round + turn) % peers.length]!;
      const keys = Array.from({ length: perRound }, () => freshKey('first'));
      first.get(library.id)!.push(...(await timeSequential(keys, (key) => peer.execute(key, instantCharge))));
      await peer.drain?.();
      replay.get(library.id)!.push(
        ...(await timeSequential(keys, (key) =>
          peer.execute(key, async () => {
            replayExecutions.set(library.id, replayExecutions.get(library.id)! + 1);
            return newCharge();
          }),
        )),
      );
    }
  }
  return { first, replay, replayExecutions };
}

/** Awaits `call` once per key, one after the other, timing each with the monotonic clock (ns). */
export async function timeSequential(
  keys: readonly string[],
  call: (key: string) => Promise<Charge>,
): Promise<bigint[]> {
  const durations: bigint[] = [];
  for (const key of keys) {
    const start = process.hrtime.bigint();
    await call(key);
    durations.push(process.hrtime.bigint() - start);
  }
  return durations;
}

export async function countCommands(
  peer: Peer,
  counter: RedisCommandCounter,
): Promise<{ first: PerCallCommands; replay: PerCallCommands }> {
  const keys = Array.from({ length: PLAN.commandSamples }, () => freshKey('count'));
  const first = await counter.count(async () => {
    for (const key of keys) await peer.execute(key, instantCharge);
    await peer.drain?.();
  });
  const replay = await counter.count(async () => {
    for (const key of keys) await peer.execute(key, instantCharge);
    await peer.drain?.();
  });
  return { first: perCall(first, keys.length), replay: perCall(replay, keys.length) };
}

export function perCall(count: CommandCount, calls: number): PerCallCommands {
  const divide = (byCommand: Readonly<Record<string, number>>): Record<string, number> =>
    Object.fromEntries(Object.entries(byCommand).map(([name, n]) => [name, round(n / calls, 2)]));
  return {
    server: round(count.server / calls, 2),
    roundTrips: round(count.roundTrips / calls, 2),
    serverByCommand: divide(count.serverByCommand),
    clientByCommand: divide(count.clientByCommand),
  };
}

export type LibraryThroughput = Pick<LibraryResult, 'throughput' | 'throughputReplayExecutions'>;

/**
 * Throughput windows interleaved like latency: in each round every library (rotating order) runs, for each number
 * of keys in flight, a window of fresh keys and a window of replays of primed keys, on a freshly flushed Redis (so
 * memory does not grow over the run). Per library and window, the median over rounds.
 */
export async function measureAllThroughput(
  peers: readonly { library: Library; peer: Peer }[],
  flush: () => Promise<void>,
  redisCpu: () => number | undefined,
): Promise<Map<string, LibraryThroughput>> {
  const windows = new Map<string, { first: ThroughputResult[]; replay: ThroughputResult[] }[]>();
  const replayExecutions = new Map<string, number>();
  for (let round = 0; round < PLAN.throughputRounds; round++) {
    console.error(`  throughput, round ${round + 1} of ${PLAN.throughputRounds}`);
    for (let turn = 0; turn < peers.length; turn++) {
      const { library, peer } = peers[(round + turn) % peers.length]!;
      const perConcurrency =
        windows.get(library.id) ?? PLAN.throughputConcurrencies.map(() => ({ first: [], replay: [] }));
      windows.set(library.id, perConcurrency);
      for (const [index, concurrency] of PLAN.throughputConcurrencies.entries()) {
        await flush();
        const { first, replay, executions } = await throughputWindows(peer, concurrency, redisCpu);
        perConcurrency[index]!.first.push(first);
        perConcurrency[index]!.replay.push(replay);
        replayExecutions.set(library.id, (replayExecutions.get(library.id) ?? 0) + executions);
      }
    }
  }
  const result = new Map<string, LibraryThroughput>();
  for (const { library } of peers) {
    result.set(library.id, {
      throughput: windows.get(library.id)!.map((w, index) => ({
        concurrency: PLAN.throughputConcurrencies[index]!,
        first: medianOf(w.first),
        replay: medianOf(w.replay),
      })),
      throughputReplayExecutions: replayExecutions.get(library.id) ?? 0,
    });
  }
  return result;
}

/** One window of fresh keys, then one of replays of keys primed just before it. */
export async function throughputWindows(peer: Peer, concurrency: number, redisCpu: () => number | undefined) {
  let executions = 0;
  const countedCharge: ChargeAction = async () => {
    executions++;
    return newCharge();
  };
  const first = await measureThroughput(
    concurrency,
    PLAN.throughputMs,
    () => peer.execute(freshKey('tput'), instantCharge),
    redisCpu,
  );
  await peer.drain?.();
  const keys = Array.from({ length: concurrency * REPLAY_KEYS_PER_WORKER }, () => freshKey('tput-replay'));
  for (const key of keys) await peer.execute(key, instantCharge);
  await peer.drain?.();
  const replay = await measureThroughput(
    concurrency,
    PLAN.throughputMs,
    (worker, i) =>
      peer.execute(keys[worker * REPLAY_KEYS_PER_WORKER + (i % REPLAY_KEYS_PER_WORKER)]!, countedCharge),
    redisCpu,
  );
  return { first, replay, executions };
}

/** The window with the median ops/s (errors summed over all windows, so none is hidden). */
export function medianOf(results: readonly ThroughputResult[]): ThroughputResult {
  const sorted = [...results].sort((a, b) => a.opsPerSecond - b.opsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return { ...median, errors: results.reduce((n, r) => n + r.errors, 0) };
}
