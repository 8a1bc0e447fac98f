/** The table, the goals and the notes `pnpm bench:peers` prints. */
import { InProgressExpiry } from '../peers/peer.js';
import {
  PLAN,
  REPLAY_KEYS_PER_WORKER,
  Role,
  type ContentionResult,
  type LibraryResult,
  type StaleOwnerResult,
} from './peer-plan.js';
import { round } from './stats.js';
import type { ThroughputResult } from './throughput.js';

export function addRatios(results: LibraryResult[]): void {
  const ours = results.find((result) => result.role === Role.Ours);
  if (!ours) return;
  for (const result of results) {
    result.ratioToOurs = {
      firstP50: round(result.first.p50 / ours.first.p50, 2),
      replayP50: round(result.replay.p50 / ours.replay.p50, 2),
    };
  }
}

export interface GoalResult {
  readonly goal: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
  readonly detail: string;
}

export function evaluateGoals(results: readonly LibraryResult[]): GoalResult[] {
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

export function ms(value: number): string {
  return value < 1 ? value.toFixed(3) : value.toFixed(2);
}

export function staleCell(stale: StaleOwnerResult): string {
  const prefix =
    stale.inProgressExpiry === InProgressExpiry.Lease
      ? ''
      : stale.inProgressExpiry === InProgressExpiry.RecordTtl
        ? `no lease (in-progress kept for the result TTL, ${PLAN.settings.resultTtlMs / 3_600_000} h here): `
        : 'no in-progress record: ';
  return `${prefix}${stale.executions} run(s), stored: ${stale.stored}; 1st got ${stale.firstCaller}, 2nd got ${stale.secondCaller}`;
}

export function contentionCell(contention: ContentionResult): string {
  const errors = Object.entries(contention.errors)
    .map(([label, n]) => `${n} ${label}`)
    .join(', ');
  const given =
    contention.distinctChargesReturned > 1
      ? `, ${contention.distinctChargesReturned} different charges returned`
      : '';
  return `**${contention.executions}** run(s); ${contention.fulfilled} ok${errors ? `, ${errors}` : ''}${given}`;
}

export function renderTable(results: readonly LibraryResult[]): string {
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
export function cpuOf(result: ThroughputResult | undefined): string {
  if (!result) return 'n/a';
  const redis = result.redisCpuUsPerOp === undefined ? 'n/a' : result.redisCpuUsPerOp.toFixed(1);
  return `Node ${result.nodeCpuUsPerOp.toFixed(1)} + Redis ${redis} µs CPU/op`;
}

/** The fastest peer (not the baseline) per throughput column, and each of our rows as a ratio to it. */
export function throughputAgainstPeers(results: readonly LibraryResult[]) {
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

export function renderThroughputRatios(results: readonly LibraryResult[]): string[] {
  const lines = ['Throughput against the fastest peer in this run (ours / fastest; >= 1.00 is the goal):'];
  for (const row of throughputAgainstPeers(results)) {
    const label = row.phase === 'first' ? 'first executions' : 'replays';
    lines.push(
      `- ${row.ours.name}, ${label} @${row.concurrency} keys: ${row.ratio.toFixed(2)}x (${row.oursOps}/s, ${row.oursCpu} vs ${row.fastest.name} ${row.fastestOps}/s, ${row.fastestCpu})`,
    );
  }
  return lines;
}

export function renderNotes(results: readonly LibraryResult[], goals: readonly GoalResult[]): string {
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

export const METHOD = [
  `One private redis-server (started by this script, used by nothing else; FLUSHALL before each library's command and contention phases and before each throughput window) and one Node process for all libraries. Latency and throughput interleave libraries; commands, contention and the stale-owner race run one library at a time.`,
  `Action: an async function returning a ~170-byte JSON charge; every library gets the same request {orderId, amount, currency} and hashes or compares it its own way.`,
  `Latency: ${PLAN.warmup} warm-up first executions and replays per library, then ${PLAN.samples} first executions on fresh keys and ${PLAN.samples} replays of those keys, sequential, timed with process.hrtime.bigint(), in ${PLAN.latencyRounds} interleaved rounds (each library takes a turn per round, rotating order); nearest-rank p50/p99.`,
  `Redis commands per call: a separate phase of ${PLAN.commandSamples} first executions and ${PLAN.commandSamples} replays. "server" = sum of calls in INFO commandstats after CONFIG RESETSTAT (counts commands run inside Lua scripts too); "round trips" = commands received from clients as seen by MONITOR, where script-internal commands (source "lua") are left out, and EVALSHA/EVAL/FCALL and a MULTI..EXEC block count 1 each (independent pipelined commands would still count one each). Background writes are awaited before the window closes.`,
  `Throughput: for ${PLAN.throughputConcurrencies.join(' and ')} keys in flight, that many concurrent workers executing fresh keys for ${PLAN.throughputMs} ms, then replaying ${REPLAY_KEYS_PER_WORKER} primed keys each for ${PLAN.throughputMs} ms; FLUSHALL before each pair of windows; ${PLAN.throughputRounds} interleaved rounds (each library takes its turn per round, rotating order); the median window per library.`,
  `Contention: ${PLAN.contentionCalls} concurrent calls with one key, action takes ${PLAN.contentionActionMs} ms; "runs" counts how often the action actually ran.`,
  `Stale owner: a fresh instance with a ${PLAN.staleOwner.leaseMs} ms in-progress window (ours: leaseMs with renewLease false; powertools: Lambda remaining time; libraries without an in-progress expiry keep their documented default). The first action takes ${PLAN.staleOwner.firstActionMs} ms; a duplicate starts at ${PLAN.staleOwner.secondStartsAfterMs} ms with a ${PLAN.staleOwner.secondActionMs} ms action; a third call afterwards shows whose result is stored.`,
  `HTTP is not involved in any row (express-idempotency's middleware is called with stub req/res).`,
];
