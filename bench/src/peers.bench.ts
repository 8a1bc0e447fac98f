/**
 * `pnpm bench:peers`: our coordinator against the idempotency libraries a Node user would otherwise pick, on the
 * same private Redis, in one run, with the same action and payload. Prints one table and writes the same figures
 * to bench/results/peers.json.
 *
 * Environment (optional): BENCH_PEERS=retry-safe,powertools,... to run a subset; BENCH_SAMPLES (default 2000)
 * BENCH_THROUGHPUT_MS (default 1000, per window) and BENCH_THROUGHPUT_ROUNDS (default 3) for quick runs. The committed results come from the defaults.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPrivateRedisServer } from '@retry-safe/testing';
import { ExpressIdempotencyPeer } from './peers/express-idempotency.peer.js';
import { HandRolledPeer } from './peers/hand-rolled.peer.js';
import { NodeIdempotencyPeer } from './peers/node-idempotency.peer.js';
import {
  InProgressExpiry,
  newCharge,
  type Charge,
  type ChargeAction,
  type Peer,
  type PeerCapabilities,
  type PeerSettings,
} from './peers/peer.js';
import { PowertoolsPeer } from './peers/powertools.peer.js';
import { RetrySafePeer } from './peers/retry-safe.peer.js';
import { RedisCommandCounter, type CommandCount } from './support/redis-commands.js';
import { round, summarise, type LatencySummary } from './support/stats.js';
import { measureThroughput, redisCpuReader, type ThroughputResult } from './support/throughput.js';

/** Which row a library is: ours, a peer library (the goals compare against these), or the hand-rolled floor. */
const Role = { Ours: 'ours', Peer: 'peer', Baseline: 'baseline' } as const;
type Role = (typeof Role)[keyof typeof Role];

interface Library {
  readonly id: string;
  readonly role: Role;
  /** Ours as the README recommends using it (our defaults): the row the throughput goals use. */
  readonly recommended?: boolean;
  readonly create: () => Peer;
  /** The stale-owner scenario needs a peer whose action can outlive its lease. */
  readonly createForStaleOwner: () => Peer;
}

const LIBRARIES: readonly Library[] = [
  {
    id: 'retry-safe',
    role: Role.Ours,
    // Our defaults: the store sends the commands of one tick in one write by itself.
    recommended: true,
    create: () => new RetrySafePeer(),
    createForStaleOwner: () => new RetrySafePeer({ renewLease: false }),
  },
  {
    // ioredis' enableAutoPipelining, the setting issue reports suggested: shown for comparison, not recommended.
    id: 'retry-safe-autopipelining',
    role: Role.Ours,
    create: () => new RetrySafePeer({ autoPipelining: true }),
    createForStaleOwner: () => new RetrySafePeer({ renewLease: false, autoPipelining: true }),
  },
  {
    id: 'powertools',
    role: Role.Peer,
    create: () => new PowertoolsPeer(),
    createForStaleOwner: () => new PowertoolsPeer(),
  },
  {
    id: 'node-idempotency',
    role: Role.Peer,
    create: () => new NodeIdempotencyPeer(),
    createForStaleOwner: () => new NodeIdempotencyPeer(),
  },
  {
    id: 'express-idempotency',
    role: Role.Peer,
    create: () => new ExpressIdempotencyPeer(),
    createForStaleOwner: () => new ExpressIdempotencyPeer(),
  },
  {
    id: 'hand-rolled',
    role: Role.Baseline,
    create: () => new HandRolledPeer(),
    createForStaleOwner: () => new HandRolledPeer(),
  },
];

/** Every figure the script measures, with the reasons behind the numbers. */
const PLAN = {
  samples: positiveInt('BENCH_SAMPLES', 2000),
  warmup: 300,
  latencyRounds: 4,
  commandSamples: 200,
  throughputConcurrencies: [64, 256],
  throughputMs: positiveInt('BENCH_THROUGHPUT_MS', 1000),
  // Every library takes each throughput window once per round (rotating order); the table shows the median.
  throughputRounds: positiveInt('BENCH_THROUGHPUT_ROUNDS', 3),
  contentionCalls: 100,
  // Long enough that all 100 calls are in flight together before the first one finishes.
  contentionActionMs: 50,
  // The usual case: a lease far longer than the action (30 s is our default) and a one-hour result.
  settings: { inProgressMs: 30_000, resultTtlMs: 3_600_000 } satisfies PeerSettings,
  staleOwner: { leaseMs: 200, firstActionMs: 800, secondStartsAfterMs: 300, secondActionMs: 50 },
} as const;

interface ContentionResult {
  readonly calls: number;
  readonly executions: number;
  readonly fulfilled: number;
  readonly rejected: number;
  /** Rejections by the library's error code or name. */
  readonly errors: Readonly<Record<string, number>>;
  /** How many different charges the fulfilled callers were given (1 = everyone saw the same charge). */
  readonly distinctChargesReturned: number;
}

/** Whose result a later call replays after the stale-owner race. */
type StoredResult = 'first owner' | 'second owner' | 'nothing (a third call ran)' | 'unreadable';

interface StaleOwnerResult {
  readonly leaseMs: number;
  /** Without a lease there is nothing to outlive: the row then says what the library does instead. */
  readonly inProgressExpiry: InProgressExpiry;
  readonly executions: number;
  readonly stored: StoredResult;
  /** What the caller whose action outlived the lease got back. */
  readonly firstCaller: string;
  /** What the duplicate that came after the lease got back. */
  readonly secondCaller: string;
  /** What a third call for the key got after both settled (a replay, an error, or a new execution). */
  readonly thirdCaller: string;
}

interface LibraryResult {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly capabilities: PeerCapabilities;
  readonly first: LatencySummary;
  readonly replay: LatencySummary;
  /** Actions that ran during the replay phase (must be 0). */
  readonly replayExecutions: number;
  readonly commands: { readonly first: PerCallCommands; readonly replay: PerCallCommands };
  readonly recommended: boolean;
  /** Per number of keys in flight, first executions (fresh keys) and replays (primed keys). */
  readonly throughput: readonly ThroughputPair[];
  /** Actions that ran during the replay throughput windows (must be 0). */
  readonly throughputReplayExecutions: number;
  readonly contention: ContentionResult;
  readonly staleOwner: StaleOwnerResult;
  /** Ours only: the same race with lease renewal on (our default). */
  readonly staleOwnerWithRenewal?: StaleOwnerResult;
  /** This library's p50 divided by ours (> 1: ours is faster). */
  ratioToOurs?: { readonly firstP50: number; readonly replayP50: number };
}

interface ThroughputPair {
  readonly concurrency: number;
  readonly first: ThroughputResult;
  readonly replay: ThroughputResult;
}

interface PerCallCommands {
  readonly server: number;
  readonly roundTrips: number;
  readonly serverByCommand: Readonly<Record<string, number>>;
  readonly clientByCommand: Readonly<Record<string, number>>;
}

const runId = Date.now().toString(36);
let keySerial = 0;
/** A key no earlier call used; `[a-z0-9-]` only, which every library accepts. */
function freshKey(phase: string): string {
  return `${runId}-${phase}-${(keySerial++).toString(36)}`;
}

const instantCharge: ChargeAction = async () => newCharge();

async function main(): Promise<void> {
  const selected = selectLibraries();
  const redis = await startPrivateRedisServer();
  const admin = redis.client();
  let counter: RedisCommandCounter | undefined;
  try {
    const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
    // The machine may be shared: the load average says how quiet it was.
    const loadAtStart = loadavg()[0] ?? Number.NaN;
    counter = await RedisCommandCounter.start(redis.client());
    console.error(
      `private redis-server ${redisVersion} at ${redis.url}; ${PLAN.samples} samples per latency phase`,
    );
    const results = await measureAll(
      selected,
      redis.url,
      counter,
      () => admin.flushall().then(() => undefined),
      await redisCpuReader(admin),
    );
    addRatios(results);
    const report = {
      generatedAt: new Date().toISOString(),
      command: 'pnpm build && pnpm bench:peers',
      environment: {
        node: process.version,
        redis: redisVersion,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        loadAverage1m: { start: round(loadAtStart, 2), end: round(loadavg()[0] ?? Number.NaN, 2) },
      },
      plan: PLAN,
      method: METHOD,
      goals: evaluateGoals(results),
      results,
    };
    console.log(renderTable(results));
    console.log();
    console.log(renderNotes(results, report.goals));
    const env = report.environment;
    console.log(
      `\nEnvironment: Node ${env.node}, Redis ${env.redis}, ${env.cpus} x ${env.cpuModel}, ` +
        `1-min load average ${env.loadAverage1m.start} at start, ${env.loadAverage1m.end} at end.`,
    );
    const file = new URL('../results/peers.json', import.meta.url);
    await mkdir(new URL('.', file), { recursive: true });
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.error(`wrote ${file.pathname}`);
  } finally {
    await counter?.close();
    await admin.quit();
    // The server process is unref'd and, with every client closed, nothing else keeps the event loop alive
    // while close() waits for its exit: without this timer Node would leave with the top-level await unsettled.
    const keepAlive = setInterval(() => {}, 1000);
    try {
      await redis.close();
    } finally {
      clearInterval(keepAlive);
    }
  }
}

type Measured = Omit<LibraryResult, 'staleOwner' | 'staleOwnerWithRenewal' | 'ratioToOurs'>;

/**
 * Latency is measured in interleaved rounds (every library takes a turn in each round, in a rotating order) so
 * that drift on a shared machine (CPU frequency, other processes) spreads over all rows instead of landing on
 * whichever library happened to run at that moment. Commands, throughput and contention run one library at a
 * time, as they load the machine.
 */
async function measureAll(
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
    console.error('  warm-up');
    for (const { peer } of peers) {
      // JIT, connection buffers, script cache (NOSCRIPT -> EVAL happens here, not in the samples).
      const warmKeys = Array.from({ length: PLAN.warmup }, () => freshKey('warm'));
      for (const key of warmKeys) await peer.execute(key, instantCharge);
      for (const key of warmKeys) await peer.execute(key, instantCharge);
      await peer.drain?.();
    }

    console.error(`  latency, ${PLAN.latencyRounds} interleaved rounds`);
    const first = new Map<string, bigint[]>(peers.map(({ library }) => [library.id, []]));
    const replay = new Map<string, bigint[]>(peers.map(({ library }) => [library.id, []]));
    const replayExecutions = new Map<string, number>(peers.map(({ library }) => [library.id, 0]));
    const perRound = Math.ceil(PLAN.samples / PLAN.latencyRounds);
    for (let round = 0; round < PLAN.latencyRounds; round++) {
      for (let turn = 0; turn < peers.length; turn++) {
        const { library, peer } = peers[(round + turn) % peers.length]!;
        const keys = Array.from({ length: perRound }, () => freshKey('first'));
        first
          .get(library.id)!
          .push(...(await timeSequential(keys, (key) => peer.execute(key, instantCharge))));
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

/** Awaits `call` once per key, one after the other, timing each with the monotonic clock (ns). */
async function timeSequential(
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

async function countCommands(
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

function perCall(count: CommandCount, calls: number): PerCallCommands {
  const divide = (byCommand: Readonly<Record<string, number>>): Record<string, number> =>
    Object.fromEntries(Object.entries(byCommand).map(([name, n]) => [name, round(n / calls, 2)]));
  return {
    server: round(count.server / calls, 2),
    roundTrips: round(count.roundTrips / calls, 2),
    serverByCommand: divide(count.serverByCommand),
    clientByCommand: divide(count.clientByCommand),
  };
}

/** Keys each replay worker cycles over; primed before the window, so every call in it is a replay. */
const REPLAY_KEYS_PER_WORKER = 4;

type LibraryThroughput = Pick<LibraryResult, 'throughput' | 'throughputReplayExecutions'>;

/**
 * Throughput windows interleaved like latency: in each round every library (rotating order) runs, for each number
 * of keys in flight, a window of fresh keys and a window of replays of primed keys, on a freshly flushed Redis (so
 * memory does not grow over the run). Per library and window, the median over rounds.
 */
async function measureAllThroughput(
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
async function throughputWindows(peer: Peer, concurrency: number, redisCpu: () => number | undefined) {
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
function medianOf(results: readonly ThroughputResult[]): ThroughputResult {
  const sorted = [...results].sort((a, b) => a.opsPerSecond - b.opsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return { ...median, errors: results.reduce((n, r) => n + r.errors, 0) };
}

/** 100 calls with one key, all started together; the action takes 50 ms, as a provider call would. */
async function measureContention(peer: Peer): Promise<ContentionResult> {
  const key = freshKey('contention');
  let executions = 0;
  const action: ChargeAction = async () => {
    executions++;
    await sleep(PLAN.contentionActionMs);
    return newCharge();
  };
  const settled = await Promise.allSettled(
    Array.from({ length: PLAN.contentionCalls }, () => peer.execute(key, action)),
  );
  await peer.drain?.();
  const errors: Record<string, number> = {};
  const charges = new Set<string>();
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') charges.add(outcome.value.id);
    else {
      const label = errorLabel(outcome.reason);
      errors[label] = (errors[label] ?? 0) + 1;
    }
  }
  const fulfilled = settled.filter((outcome) => outcome.status === 'fulfilled').length;
  return {
    calls: PLAN.contentionCalls,
    executions,
    fulfilled,
    rejected: PLAN.contentionCalls - fulfilled,
    errors,
    distinctChargesReturned: charges.size,
  };
}

/**
 * The first owner's action outlives the lease (800 ms against 200 ms); a duplicate starts at 300 ms and finishes
 * first. Then a third call shows whose result the key now holds: a library that does not check ownership on
 * completion lets the stale first owner overwrite the newer result.
 */
async function measureStaleOwner(peer: Peer, redisUrl: string): Promise<StaleOwnerResult> {
  const { leaseMs, firstActionMs, secondStartsAfterMs, secondActionMs } = PLAN.staleOwner;
  await peer.setup(redisUrl, { ...PLAN.settings, inProgressMs: leaseMs });
  try {
    const key = freshKey('stale');
    const owners = new Map<string, 'first' | 'second' | 'third'>();
    let executions = 0;
    const actionFor =
      (owner: 'first' | 'second', durationMs: number): ChargeAction =>
      async () => {
        executions++;
        await sleep(durationMs);
        const charge = newCharge();
        owners.set(charge.id, owner);
        return charge;
      };
    const first = peer.execute(key, actionFor('first', firstActionMs));
    await sleep(secondStartsAfterMs);
    const second = peer.execute(key, actionFor('second', secondActionMs));
    const [firstOutcome, secondOutcome] = await Promise.allSettled([first, second]);
    await peer.drain?.();

    const third = await settle(
      peer.execute(key, async () => {
        const charge = newCharge();
        owners.set(charge.id, 'third');
        return charge;
      }),
    );
    const storedOwner = third.status === 'fulfilled' ? owners.get(third.value.id) : undefined;
    const stored: StoredResult =
      storedOwner === 'first'
        ? 'first owner'
        : storedOwner === 'second'
          ? 'second owner'
          : storedOwner === 'third'
            ? 'nothing (a third call ran)'
            : 'unreadable';
    const describe = (outcome: PromiseSettledResult<Charge> | undefined): string => {
      if (!outcome) return 'n/a';
      if (outcome.status === 'rejected') return `error ${errorLabel(outcome.reason)}`;
      const owner = owners.get(outcome.value.id);
      return owner ? `${owner} owner's charge` : 'unknown charge';
    };
    return {
      leaseMs,
      inProgressExpiry: peer.capabilities.inProgressExpiry,
      executions,
      stored,
      firstCaller: describe(firstOutcome),
      secondCaller: describe(secondOutcome),
      thirdCaller: describe(third),
    };
  } finally {
    await peer.close();
  }
}

async function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: 'fulfilled', value: await promise };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

/** The library's error code if it has one, else the class name, else the start of the message. */
function errorLabel(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error.name !== 'Error') return error.name;
    return error.message.slice(0, 60);
  }
  return String(error);
}

function addRatios(results: LibraryResult[]): void {
  const ours = results.find((result) => result.role === Role.Ours);
  if (!ours) return;
  for (const result of results) {
    result.ratioToOurs = {
      firstP50: round(result.first.p50 / ours.first.p50, 2),
      replayP50: round(result.replay.p50 / ours.replay.p50, 2),
    };
  }
}

interface GoalResult {
  readonly goal: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
  readonly detail: string;
}

function evaluateGoals(results: readonly LibraryResult[]): GoalResult[] {
  const ours = results.find((result) => result.role === Role.Ours);
  const peers = results.filter((result) => result.role === Role.Peer);
  if (!ours || peers.length === 0) {
    return [
      { goal: 'all', target: '-', measured: '-', met: null, detail: 'ours and at least one peer must run' },
    ];
  }
  const speedGoal = (phase: 'first' | 'replay', target: number, label: string): GoalResult => {
    const fastest = peers.reduce((best, peer) => (peer[phase].p50 < best[phase].p50 ? peer : best));
    const ratio = fastest[phase].p50 / ours[phase].p50;
    const met = ratio >= target;
    return {
      goal: `${label}: p50 at least ${target}x faster than the fastest peer`,
      target: `>= ${target}x`,
      measured: `${round(ratio, 2)}x (ours ${ours[phase].p50.toFixed(3)} ms, ${fastest.name} ${fastest[phase].p50.toFixed(3)} ms)`,
      met,
      detail: met
        ? `met by ${round(ratio - target, 2)}x`
        : `missed by ${round(target - ratio, 2)}x: ours would need <= ${(fastest[phase].p50 / target).toFixed(3)} ms`,
    };
  };
  const throughputGoals = throughputAgainstPeers(results)
    .filter((row) => row.ours.recommended)
    .map((row): GoalResult => ({
      goal: `${row.phase === 'first' ? 'first executions' : 'replays'}/s @${row.concurrency} keys at least the fastest peer's (ours, defaults)`,
      target: '>= 1x',
      measured: `${row.ratio.toFixed(2)}x (ours ${row.oursOps}/s, ${row.fastest.name} ${row.fastestOps}/s)`,
      met: row.ratio >= 1,
      detail: row.ratio >= 1 ? `met by ${round(row.ratio - 1, 2)}x` : `missed by ${round(1 - row.ratio, 2)}x`,
    }));
  const peersAboveOne = peers.filter((peer) => peer.contention.executions > 1).map((peer) => peer.name);
  return [
    speedGoal('first', 1.3, 'first execution'),
    speedGoal('replay', 1.5, 'replay'),
    ...throughputGoals,
    {
      goal: `exactly one execution for ${PLAN.contentionCalls} concurrent calls with one key`,
      target: '1',
      measured: `ours ${ours.contention.executions}; peers above 1: ${peersAboveOne.join(', ') || 'none'}`,
      met: ours.contention.executions === 1,
      detail: `ours ran the action ${ours.contention.executions} time(s)`,
    },
  ];
}

function ms(value: number): string {
  return value < 1 ? value.toFixed(3) : value.toFixed(2);
}

function staleCell(stale: StaleOwnerResult): string {
  const prefix =
    stale.inProgressExpiry === InProgressExpiry.Lease
      ? ''
      : stale.inProgressExpiry === InProgressExpiry.RecordTtl
        ? `no lease (in-progress kept for the result TTL, ${PLAN.settings.resultTtlMs / 3_600_000} h here): `
        : 'no in-progress record: ';
  return `${prefix}${stale.executions} run(s), stored: ${stale.stored}; 1st got ${stale.firstCaller}, 2nd got ${stale.secondCaller}`;
}

function contentionCell(contention: ContentionResult): string {
  const errors = Object.entries(contention.errors)
    .map(([label, n]) => `${n} ${label}`)
    .join(', ');
  const given =
    contention.distinctChargesReturned > 1
      ? `, ${contention.distinctChargesReturned} different charges returned`
      : '';
  return `**${contention.executions}** run(s); ${contention.fulfilled} ok${errors ? `, ${errors}` : ''}${given}`;
}

function renderTable(results: readonly LibraryResult[]): string {
  const header = [
    'library',
    'first p50 ms',
    'first p99 ms',
    'replay p50 ms',
    'replay p99 ms',
    'first p50 / ours',
    'replay p50 / ours',
    'Redis cmds first: server / round trips',
    'Redis cmds replay: server / round trips',
    ...PLAN.throughputConcurrencies.map((n) => `first/s @${n} keys`),
    ...PLAN.throughputConcurrencies.map((n) => `replays/s @${n} keys`),
    `contention: ${PLAN.contentionCalls} calls, 1 key`,
    `stale owner (lease ${PLAN.staleOwner.leaseMs} ms, action ${PLAN.staleOwner.firstActionMs} ms)`,
  ];
  const rows = results.map((result) => [
    result.role === Role.Baseline ? `${result.name} (baseline)` : result.name,
    ms(result.first.p50),
    ms(result.first.p99),
    ms(result.replay.p50),
    ms(result.replay.p99),
    result.ratioToOurs ? `${result.ratioToOurs.firstP50.toFixed(2)}x` : 'n/a',
    result.ratioToOurs ? `${result.ratioToOurs.replayP50.toFixed(2)}x` : 'n/a',
    `${result.commands.first.server} / ${result.commands.first.roundTrips}`,
    `${result.commands.replay.server} / ${result.commands.replay.roundTrips}`,
    ...result.throughput.map((t) => String(t.first.opsPerSecond)),
    ...result.throughput.map((t) => String(t.replay.opsPerSecond)),
    contentionCell(result.contention),
    staleCell(result.staleOwner),
  ]);
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Node + Redis CPU µs per op of a window ("n/a" without /proc). */
function cpuOf(result: ThroughputResult | undefined): string {
  if (!result) return 'n/a';
  const redis = result.redisCpuUsPerOp === undefined ? 'n/a' : result.redisCpuUsPerOp.toFixed(1);
  return `Node ${result.nodeCpuUsPerOp.toFixed(1)} + Redis ${redis} µs CPU/op`;
}

/** The fastest peer (not the baseline) per throughput column, and each of our rows as a ratio to it. */
function throughputAgainstPeers(results: readonly LibraryResult[]) {
  const peers = results.filter((result) => result.role === Role.Peer);
  const columns = PLAN.throughputConcurrencies.flatMap((concurrency, index) =>
    (['first', 'replay'] as const).map((phase) => ({ concurrency, index, phase })),
  );
  return columns.flatMap(({ concurrency, index, phase }) => {
    const opsOf = (result: LibraryResult) => result.throughput[index]?.[phase].opsPerSecond ?? 0;
    const fastest = peers.reduce<LibraryResult | undefined>(
      (best, peer) => (!best || opsOf(peer) > opsOf(best) ? peer : best),
      undefined,
    );
    if (!fastest) return [];
    return results
      .filter((result) => result.role === Role.Ours)
      .map((ours) => ({
        ours,
        phase,
        concurrency,
        fastest,
        oursOps: opsOf(ours),
        fastestOps: opsOf(fastest),
        ratio: round(opsOf(ours) / opsOf(fastest), 2),
        oursCpu: cpuOf(ours.throughput[index]?.[phase]),
        fastestCpu: cpuOf(fastest.throughput[index]?.[phase]),
      }));
  });
}

function renderThroughputRatios(results: readonly LibraryResult[]): string[] {
  const lines = ['Throughput against the fastest peer in this run (ours / fastest; >= 1.00 is the goal):'];
  for (const row of throughputAgainstPeers(results)) {
    const label = row.phase === 'first' ? 'first executions' : 'replays';
    lines.push(
      `- ${row.ours.name}, ${label} @${row.concurrency} keys: ${row.ratio.toFixed(2)}x (${row.oursOps}/s, ${row.oursCpu} vs ${row.fastest.name} ${row.fastestOps}/s, ${row.fastestCpu})`,
    );
  }
  return lines;
}

function renderNotes(results: readonly LibraryResult[], goals: readonly GoalResult[]): string {
  const lines: string[] = ['Goals:'];
  for (const goal of goals) {
    const verdict = goal.met === null ? 'not evaluated' : goal.met ? 'MET' : 'MISSED';
    lines.push(`- ${goal.goal}: ${verdict}; ${goal.measured}; ${goal.detail}`);
  }
  lines.push('', ...renderThroughputRatios(results));
  lines.push('', 'Capabilities (what each library cannot do is listed, not left out):');
  for (const result of results) {
    const c = result.capabilities;
    const gaps = [
      c.atomicClaim ? undefined : 'no atomic reservation (GET, then SET)',
      c.inProgressExpiry === InProgressExpiry.Lease
        ? undefined
        : c.inProgressExpiry === InProgressExpiry.RecordTtl
          ? 'no lease: an in-progress record lives as long as a result (a crashed owner blocks its key for the TTL, 24 h by default)'
          : 'no in-progress record at all',
      c.payloadCheck ? undefined : 'no check that a reused key carries the same request',
      c.ownerCheckedComplete ? undefined : 'completion not owner-checked (a stale owner overwrites)',
      c.storesBeforeReturning ? undefined : 'stores the result after answering (fire-and-forget)',
    ].filter((gap): gap is string => gap !== undefined);
    lines.push(`- ${result.name}: ${gaps.length > 0 ? gaps.join('; ') : 'no gaps among these'}.`);
    lines.push(`  client: ${c.redisClient}. wiring: ${c.wiring}`);
    if (result.replayExecutions > 0)
      lines.push(`  WARNING: the action ran ${result.replayExecutions} time(s) during replays`);
    const throughputErrors = result.throughput.reduce((n, t) => n + t.first.errors + t.replay.errors, 0);
    if (throughputErrors > 0)
      lines.push(`  WARNING: ${throughputErrors} errors during the throughput phases`);
    if (result.throughputReplayExecutions > 0)
      lines.push(
        `  WARNING: the action ran ${result.throughputReplayExecutions} time(s) during replay throughput`,
      );
    if (result.staleOwnerWithRenewal) {
      lines.push(
        `  stale owner with lease renewal on (our default): ${staleCell(result.staleOwnerWithRenewal)}`,
      );
    }
  }
  lines.push('', 'Method:', ...METHOD.map((item) => `- ${item}`));
  return lines.join('\n');
}

const METHOD = [
  `One private redis-server (started by this script, used by nothing else; FLUSHALL before each library's command and contention phases and before each throughput window) and one Node process for all libraries. Latency and throughput interleave libraries; commands, contention and the stale-owner race run one library at a time.`,
  `Action: an async function returning a ~170-byte JSON charge; every library gets the same request {orderId, amount, currency} and hashes or compares it its own way.`,
  `Latency: ${PLAN.warmup} warm-up first executions and replays per library, then ${PLAN.samples} first executions on fresh keys and ${PLAN.samples} replays of those keys, sequential, timed with process.hrtime.bigint(), in ${PLAN.latencyRounds} interleaved rounds (each library takes a turn per round, rotating order); nearest-rank p50/p99.`,
  `Redis commands per call: a separate phase of ${PLAN.commandSamples} first executions and ${PLAN.commandSamples} replays. "server" = sum of calls in INFO commandstats after CONFIG RESETSTAT (counts commands run inside Lua scripts too); "round trips" = commands received from clients as seen by MONITOR, where script-internal commands (source "lua") are left out, and EVALSHA/EVAL/FCALL and a MULTI..EXEC block count 1 each (independent pipelined commands would still count one each). Background writes are awaited before the window closes.`,
  `Throughput: for ${PLAN.throughputConcurrencies.join(' and ')} keys in flight, that many concurrent workers executing fresh keys for ${PLAN.throughputMs} ms, then replaying ${REPLAY_KEYS_PER_WORKER} primed keys each for ${PLAN.throughputMs} ms; FLUSHALL before each pair of windows; ${PLAN.throughputRounds} interleaved rounds (each library takes its turn per round, rotating order); the median window per library.`,
  `Contention: ${PLAN.contentionCalls} concurrent calls with one key, action takes ${PLAN.contentionActionMs} ms; "runs" counts how often the action actually ran.`,
  `Stale owner: a fresh instance with a ${PLAN.staleOwner.leaseMs} ms in-progress window (ours: leaseMs with renewLease false; powertools: Lambda remaining time; libraries without an in-progress expiry keep their documented default). The first action takes ${PLAN.staleOwner.firstActionMs} ms; a duplicate starts at ${PLAN.staleOwner.secondStartsAfterMs} ms with a ${PLAN.staleOwner.secondActionMs} ms action; a third call afterwards shows whose result is stored.`,
  `HTTP is not involved in any row (express-idempotency's middleware is called with stub req/res).`,
];

function selectLibraries(): readonly Library[] {
  const wanted = process.env['BENCH_PEERS'];
  if (!wanted) return LIBRARIES;
  const ids = wanted.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !LIBRARIES.some((library) => library.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_PEERS: unknown ${unknown.join(', ')}; known: ${LIBRARIES.map((l) => l.id).join(', ')}`,
    );
  }
  return LIBRARIES.filter((library) => ids.includes(library.id));
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

await main();
