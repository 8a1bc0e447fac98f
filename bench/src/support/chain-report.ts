/** The printout and ratios of `pnpm bench:http`. */
import { round, type ChainResult } from './chain-load.js';
import { CHAIN_SERVICES, type Chain } from './chain-stack.js';

/** One ratio the report prints, with its goal where the issues set one. */
export interface Comparison {
  readonly what: string;
  readonly ratio: number;
  /** The median of the same ratio taken round by round, and its range (throughput ratios only). */
  readonly perRoundMedian?: number;
  readonly perRoundRange?: readonly [number, number];
  /** The ratio must be at least this (issue 17: 1.5x the baseline; issue 13: 0.85 of order creation without records). */
  readonly atLeast?: number;
  readonly met?: boolean;
}

const ON = 'this tree, coordinator on';
const OFF = 'this tree, coordinator off';
const BASELINE = 'baseline, coordinator on';
const TRACED = `${ON}, traced`;

/** Ratios between rows of the same run. */
export function comparisonsOf(results: readonly ChainResult[], chains: readonly Chain[]): Comparison[] {
  const find = (chain: string, name: string) => results.find((r) => r.chain === chain && r.name === name);
  const out: Comparison[] = [];
  const add = (what: string, a: ChainResult | undefined, b: ChainResult | undefined, atLeast?: number) => {
    if (a === undefined || b === undefined || b.opsPerSecond === 0) return;
    const ratio = round(a.opsPerSecond / b.opsPerSecond, 2);
    // Each round's two windows ran a few seconds apart: their ratio sees the least drift of the machine's load.
    const pairs = a.perRound.map((ops, i) => ops / Math.max(1, b.perRound[i] ?? 0)).sort((x, y) => x - y);
    const perRound = round(pairs[Math.floor(pairs.length / 2)] ?? Number.NaN, 2);
    out.push({
      what,
      ratio,
      perRoundMedian: perRound,
      perRoundRange: [round(pairs[0] ?? Number.NaN, 2), round(pairs.at(-1) ?? Number.NaN, 2)],
      ...(atLeast === undefined ? {} : { atLeast, met: ratio >= atLeast }),
    });
  };
  const cpu = (what: string, a: ChainResult | undefined, b: ChainResult | undefined) => {
    if (a === undefined || b === undefined || b.cpuMsPerOp.services === 0) return;
    out.push({ what, ratio: round(a.cpuMsPerOp.services / b.cpuMsPerOp.services, 2) });
  };
  if (chains.some((c) => c.label === BASELINE)) {
    add(
      'fresh payments/s, this tree / baseline (goal >= 1.5x)',
      find(ON, 'fresh payments'),
      find(BASELINE, 'fresh payments'),
      1.5,
    );
    add('replays/s, this tree / baseline', find(ON, 'replays'), find(BASELINE, 'replays'));
    add(
      'orders created/s, this tree / baseline',
      find(ON, 'order creation'),
      find(BASELINE, 'order creation'),
    );
    cpu(
      'service CPU per fresh payment, this tree / baseline',
      find(ON, 'fresh payments'),
      find(BASELINE, 'fresh payments'),
    );
    cpu('service CPU per replay, this tree / baseline', find(ON, 'replays'), find(BASELINE, 'replays'));
  }
  add('fresh payments/s, coordinator on / off', find(ON, 'fresh payments'), find(OFF, 'fresh payments'));
  add(
    'orders created/s, with the transactional record / without (goal >= 0.85)',
    find(ON, 'order creation'),
    find(OFF, 'order creation'),
    0.85,
  );
  cpu(
    'service CPU per order, with the record / without',
    find(ON, 'order creation'),
    find(OFF, 'order creation'),
  );
  add('replays/s / fresh payments/s (coordinator on)', find(ON, 'replays'), find(ON, 'fresh payments'));
  // HTTP_BENCH_TRACING=1: what tracing the chain costs, against the untraced chain of the same run.
  for (const traced of [TRACED, `${TRACED} 10 %`].filter((label) => chains.some((c) => c.label === label))) {
    const design = traced.slice(ON.length + 2);
    add(`fresh payments/s, ${design} / untraced`, find(traced, 'fresh payments'), find(ON, 'fresh payments'));
    cpu(
      `service CPU per fresh payment, ${design} / untraced`,
      find(traced, 'fresh payments'),
      find(ON, 'fresh payments'),
    );
    add(`orders created/s, ${design} / untraced`, find(traced, 'order creation'), find(ON, 'order creation'));
  }
  return out;
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
