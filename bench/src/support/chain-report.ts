/** The printout and ratios of `pnpm bench:http`. */
import { FLOORS } from './floor-chain.js';
import { relayCpuOf, type ChainResult } from './chain-load.js';
import { CHAIN_SERVICES, type Chain } from './chain-stack.js';
import { positiveNumber } from './env.js';
import { median, round } from './stats.js';

/** One ratio the report prints, with its goal where the issues set one. */
export interface Comparison {
  readonly what: string;
  readonly ratio: number;
  /** The median of the same ratio taken round by round, and its range. */
  readonly perRoundMedian?: number;
  readonly perRoundRange?: readonly [number, number];
  /**
   * The ratio must be at least this (issue 17: 1.5x the baseline, `HTTP_BENCH_BASELINE_GOAL` for another baseline;
   * issue 13: 0.85 of order creation without records).
   */
  readonly atLeast?: number;
  readonly met?: boolean;
}

const ON = 'this tree, coordinator on';
const OFF = 'this tree, coordinator off';
const BASELINE = 'baseline, coordinator on';
const TRACED = `${ON}, traced`;
const AGAIN = `${ON}, again`;

const FRESH = 'fresh payments';
const REPLAYS = 'replays';
const ORDERS = 'order creation';

/** A row of the results: a chain's label and a scenario's name. */
type Row = readonly [chain: string, scenario: string];

/**
 * One ratio to take: row `a`'s throughput (`ops`), the four services' CPU per answer (`cpu`), the three relays' CPU
 * per answer (`relays`: gateway, orders, payments) or provider-sim's CPU per answer (`control`) over row `b`'s.
 */
interface Ratio {
  readonly what: string;
  readonly of: 'ops' | 'cpu' | 'relays' | 'control';
  readonly a: Row;
  readonly b: Row;
  readonly atLeast?: number;
}

/** The ratios the report prints, for the chains this run started. */
function ratiosOf(chains: readonly Chain[]): Ratio[] {
  const ops = (what: string, a: Row, b: Row, atLeast?: number): Ratio => ({ what, of: 'ops', a, b, atLeast });
  const cpu = (what: string, a: Row, b: Row): Ratio => ({ what, of: 'cpu', a, b });
  const control = (what: string, a: Row, b: Row): Ratio => ({ what, of: 'control', a, b });
  const ran = (label: string) => chains.some((c) => c.label === label);
  // The goal against the baseline: issue 17's 1.5x by default; issue 28 (http-client on axios) asks for 0.9x.
  const goal = positiveNumber('HTTP_BENCH_BASELINE_GOAL', 1.5);
  const baseline = !ran(BASELINE)
    ? []
    : [
        ops(
          `fresh payments/s, this tree / baseline (goal >= ${goal}x)`,
          [ON, FRESH],
          [BASELINE, FRESH],
          goal,
        ),
        ops('replays/s, this tree / baseline', [ON, REPLAYS], [BASELINE, REPLAYS]),
        ops('orders created/s, this tree / baseline', [ON, ORDERS], [BASELINE, ORDERS]),
        cpu('service CPU per fresh payment, this tree / baseline', [ON, FRESH], [BASELINE, FRESH]),
        cpu('service CPU per replay, this tree / baseline', [ON, REPLAYS], [BASELINE, REPLAYS]),
      ];
  // HTTP_BENCH_TRACING=1: what tracing the chain costs, against the untraced chain of the same run.
  const traced = [TRACED, `${TRACED} 10 %`].filter(ran).flatMap((label) => {
    const design = label.slice(ON.length + 2);
    return [
      ops(`fresh payments/s, ${design} / untraced`, [label, FRESH], [ON, FRESH]),
      cpu(`service CPU per fresh payment, ${design} / untraced`, [label, FRESH], [ON, FRESH]),
      // provider-sim is untraced in both chains: how far its CPU per payment moves is the run's own noise.
      control(
        `provider-sim CPU per fresh payment (untraced in both), ${design} chain / untraced`,
        [label, FRESH],
        [ON, FRESH],
      ),
      ops(`replays/s, ${design} / untraced`, [label, REPLAYS], [ON, REPLAYS]),
      ops(`orders created/s, ${design} / untraced`, [label, ORDERS], [ON, ORDERS]),
      cpu(`service CPU per order, ${design} / untraced`, [label, ORDERS], [ON, ORDERS]),
    ];
  });
  // HTTP_BENCH_CONTROL=1: the same chain measured again as a chain of its own; its ratios are the run's own noise.
  const again = !ran(AGAIN)
    ? []
    : [
        ops('fresh payments/s, the same chain again / first (A/A)', [AGAIN, FRESH], [ON, FRESH]),
        cpu('service CPU per fresh payment, the same chain again / first (A/A)', [AGAIN, FRESH], [ON, FRESH]),
      ];
  return [
    ...baseline,
    ...floorRatiosOf(ran),
    ops('fresh payments/s, coordinator on / off', [ON, FRESH], [OFF, FRESH]),
    ops(
      'orders created/s, with the transactional record / without (goal >= 0.85)',
      [ON, ORDERS],
      [OFF, ORDERS],
      0.85,
    ),
    cpu('service CPU per order, with the record / without', [ON, ORDERS], [OFF, ORDERS]),
    ops('replays/s / fresh payments/s (coordinator on)', [ON, REPLAYS], [ON, FRESH]),
    ...traced,
    ...again,
  ];
}

/**
 * HTTP_BENCH_FLOOR: how far the services' own work is above what their three HTTP hops cost at the least, bare and
 * on their framework (the relays alone: provider-sim stands for an outside provider, and the floors' responders do
 * far less than it).
 */
function floorRatiosOf(ran: (label: string) => boolean): Ratio[] {
  return Object.values(FLOORS)
    .filter(({ label }) => ran(label))
    .flatMap(({ label: floor, short }) => {
      const relays = (who: string, label: string): Ratio => ({
        what: `service CPU per fresh payment, ${who} / ${short}`,
        of: 'relays',
        a: [label, FRESH],
        b: [floor, FRESH],
      });
      return [relays('this tree', ON), ...(ran(BASELINE) ? [relays('baseline', BASELINE)] : [])];
    });
}

/**
 * The median and range of `a[i] / b[i]` over the rounds: each round's two windows ran a few seconds apart, so
 * their ratio sees the least drift of the machine's load.
 */
function perRoundRatios(
  a: readonly number[],
  b: readonly number[],
): Pick<Comparison, 'perRoundMedian' | 'perRoundRange'> {
  const pairs = a.map((x, i) => x / Math.max(Number.MIN_VALUE, b[i] ?? 0)).sort((x, y) => x - y);
  return {
    perRoundMedian: round(median(pairs), 2),
    perRoundRange: [round(pairs[0] ?? Number.NaN, 2), round(pairs.at(-1) ?? Number.NaN, 2)],
  };
}

/** `a`'s figure over `b`'s (with the rounds' ratios where each round kept it); undefined when `b`'s is 0. */
function ratioOf({ what, of, atLeast }: Ratio, a: ChainResult, b: ChainResult): Comparison | undefined {
  if (of === 'control') {
    const ratio = (a.cpuMsPerOp['provider-sim'] ?? NaN) / (b.cpuMsPerOp['provider-sim'] ?? NaN);
    return Number.isFinite(ratio) ? { what, ratio: round(ratio, 2) } : undefined;
  }
  const [x, y, rounds] =
    of === 'ops'
      ? [a.opsPerSecond, b.opsPerSecond, perRoundRatios(a.perRound, b.perRound)]
      : of === 'relays'
        ? [
            relayCpuOf(a.cpuMsPerOp),
            relayCpuOf(b.cpuMsPerOp),
            perRoundRatios(a.perRoundRelayCpu, b.perRoundRelayCpu),
          ]
        : [a.cpuMsPerOp.services, b.cpuMsPerOp.services, perRoundRatios(a.perRoundCpu, b.perRoundCpu)];
  if (y === 0) return undefined;
  const ratio = round(x / y, 2);
  return { what, ratio, ...rounds, ...(atLeast === undefined ? {} : { atLeast, met: ratio >= atLeast }) };
}

/** Ratios between rows of the same run (a ratio whose rows did not run is left out). */
export function comparisonsOf(results: readonly ChainResult[], chains: readonly Chain[]): Comparison[] {
  const find = ([chain, name]: Row) => results.find((r) => r.chain === chain && r.name === name);
  return ratiosOf(chains).flatMap((ratio) => {
    const a = find(ratio.a);
    const b = find(ratio.b);
    return a === undefined || b === undefined ? [] : (ratioOf(ratio, a, b) ?? []);
  });
}

const fmt = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(2);

/** The table (markdown), then each ratio on a line. */
export function printReport(
  results: readonly ChainResult[],
  comparisons: readonly Comparison[],
  run: { connections: number; seconds: number; rounds: number; baseline: string | undefined },
): void {
  console.log(
    `chain through the gateway, ${run.connections} connections, ${run.seconds} s per row in ${run.rounds} interleaved rounds (medians)` +
      (run.baseline === undefined ? '' : `; baseline: ${run.baseline}`),
  );
  console.log('');
  console.log(
    `| chain | scenario | 2xx/s | p50 ms | p99 ms | non-2xx / errors | CPU ms per answer: ${CHAIN_SERVICES.join(' | ')} | all four | Redis | PostgreSQL |`,
  );
  console.log(
    `| --- | --- | --- | --- | --- | --- | ${CHAIN_SERVICES.map(() => '---').join(' | ')} | --- | --- | --- |`,
  );
  for (const r of results) {
    const cpu = CHAIN_SERVICES.map((s) => fmt(r.cpuMsPerOp[s])).join(' | ');
    console.log(
      `| ${r.chain} | ${r.name} | ${r.opsPerSecond} | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${r.non2xx} / ${r.errors} | ${cpu} | ${fmt(r.cpuMsPerOp.services)} | ${fmt(r.cpuMsPerOp.redis)} | ${fmt(r.cpuMsPerOp.postgres)} |`,
    );
  }
  console.log('');
  for (const c of comparisons) {
    const goal = c.met === undefined ? '' : c.met ? '  met' : '  MISSED';
    const rounds =
      c.perRoundMedian === undefined || c.perRoundRange === undefined
        ? ''
        : ` (round by round: median ${c.perRoundMedian}x, ${c.perRoundRange[0]}-${c.perRoundRange[1]}x)`;
    console.log(`${c.what}: ${c.ratio}x${rounds}${goal}`);
  }
}
