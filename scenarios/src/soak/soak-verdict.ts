/**
 * The soak's verdict from its series, a pure function: does any service's heap grow after its warm-up, and does
 * any event loop stall outside the kills.
 */
import { SOAK_LIMITS } from './soak-options.js';
import { livesOf, type KillMark, type ProcessSeries, type SoakSample } from './soak-series.js';

/** What the verdict needs of the run's options. */
export interface VerdictSettings {
  readonly sampleSeconds: number;
  readonly warmupSeconds: number;
}

/**
 * The heap verdict of one process life: `short` when fewer than {@link MIN_JUDGED_SAMPLES} samples are left after
 * its warm-up, `no full GC` when its first or last third saw no mark-compact (its lowest sample would still hold
 * the old generation's garbage, not the live heap), `not judged` for provider-sim.
 */
export const HeapStatus = {
  Ok: 'ok',
  Grew: 'grew',
  Short: 'short',
  NoFullGc: 'no full GC',
  NotJudged: 'not judged',
} as const;
export type HeapStatus = (typeof HeapStatus)[keyof typeof HeapStatus];

/** One life of one process: its heap early and late after the warm-up. */
export interface HeapFinding {
  readonly process: string;
  /** 1, then 2 after its kill. */
  readonly life: number;
  /** Seconds judged: from the end of the warm-up to the life's last sample. */
  readonly from: number;
  readonly to: number;
  /** The lowest heap of the first third of the judged samples (bytes); undefined when too short. */
  readonly early: number | undefined;
  /** The lowest heap of the last third. */
  readonly late: number | undefined;
  /** `late / early - 1`. */
  readonly growth: number | undefined;
  readonly status: HeapStatus;
}

/** The event loop of one process: its worst p99 outside the kills. */
export interface DelayFinding {
  readonly process: string;
  /** The highest p99 among the samples judged (ms), and when. */
  readonly worstMs: number;
  readonly worstAt: number;
  /** Samples left out: the first two of each life (the boot, the first requests) and those overlapping a kill. */
  readonly excluded: number;
  readonly ok: boolean;
}

/** What `judgeSoak` found. */
export interface SoakVerdict {
  readonly heap: readonly HeapFinding[];
  readonly delay: readonly DelayFinding[];
  /** One line per failure. */
  readonly problems: readonly string[];
  readonly ok: boolean;
}

/** Samples of each life the delay verdict leaves out: the boot's and the first requests'. */
export const COLD_SAMPLES = 2;

/** Fewest samples judged per life: three per third. */
export const MIN_JUDGED_SAMPLES = 9;

/**
 * The services whose heap is not judged: provider-sim stands for the outside world (the payment and mail
 * providers) and keeps its ledgers in memory by design, so its heap grows with every charge.
 */
const NOT_JUDGED_FOR_HEAP: ReadonlySet<string> = new Set(['provider']);

/** The verdict on `series`, the kills at `kills` (seconds since the start, like the samples). */
export function judgeSoak(
  series: readonly ProcessSeries[],
  kills: readonly KillMark[],
  settings: VerdictSettings,
): SoakVerdict {
  const heap = series.flatMap((s) => judgeHeap(s, settings));
  const delay = series.map((s) => judgeDelay(s, kills, settings));
  const problems = [
    ...heap
      .filter((finding) => finding.status === HeapStatus.Grew)
      .map(
        (f) =>
          `${f.process} (life ${f.life}): heap grew ${percent(f.growth ?? 0)} from ${f.from.toFixed(0)} s to ${f.to.toFixed(0)} s (limit ${percent(SOAK_LIMITS.heapGrowth)})`,
      ),
    ...delay
      .filter((finding) => !finding.ok)
      .map(
        (f) =>
          `${f.process}: event-loop delay p99 ${f.worstMs.toFixed(0)} ms at ${f.worstAt.toFixed(0)} s (limit ${SOAK_LIMITS.eventLoopP99Ms} ms outside the kills)`,
      ),
  ];
  return { heap, delay, problems, ok: problems.length === 0 };
}

/** `0.123` as `+12.3 %`. */
export function percent(ratio: number): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)} %`;
}

/**
 * Each life of a process after its warm-up: the lowest heap of its first third against the lowest of its last
 * third. The heap in use is a sawtooth (garbage piles up until a collection), so a single sample or a median says
 * as much about where the sawtooth was as about what is kept; the lowest sample of a stretch that holds a full
 * collection is the live heap plus what was allocated since, and only a heap that keeps what it allocates raises
 * it from one third to the next.
 */
function judgeHeap(series: ProcessSeries, settings: VerdictSettings): HeapFinding[] {
  return livesOf(series.samples).map((life, index): HeapFinding => {
    const bornAt = (life[0] as SoakSample).at;
    const start = life.findIndex((sample) => sample.at >= bornAt + settings.warmupSeconds);
    const judged = start < 0 ? [] : life.slice(start);
    const base = {
      process: series.process,
      life: index + 1,
      from: judged[0]?.at ?? bornAt + settings.warmupSeconds,
      to: life.at(-1)?.at ?? bornAt,
    };
    if (judged.length < MIN_JUDGED_SAMPLES)
      return { ...base, early: undefined, late: undefined, growth: undefined, status: HeapStatus.Short };
    const third = Math.floor(judged.length / 3);
    // The sample before a third (the last of the warm-up, for the first) tells whether a full GC ran within it.
    const first = life.slice(Math.max(0, start - 1), start + third);
    const last = life.slice(-third - 1);
    const early = lowest(judged.slice(0, third));
    const late = lowest(judged.slice(-third));
    const found = { ...base, early, late, growth: late / early - 1 };
    if (NOT_JUDGED_FOR_HEAP.has(series.service)) return { ...found, status: HeapStatus.NotJudged };
    if (!fullGcIn(first) || !fullGcIn(last)) return { ...found, status: HeapStatus.NoFullGc };
    // Compared as a product, so that exactly the limit passes (`110 / 100 - 1` is a hair above 0.1 in floating point).
    const grew = late > early * (1 + SOAK_LIMITS.heapGrowth);
    return { ...found, status: grew ? HeapStatus.Grew : HeapStatus.Ok };
  });
}

function lowest(samples: readonly SoakSample[]): number {
  return Math.min(...samples.map((sample) => sample.heapUsedBytes));
}

/** Whether the count of mark-compacts rose from the first of `samples` to the last. */
function fullGcIn(samples: readonly SoakSample[]): boolean {
  return (samples.at(-1)?.majorGcs ?? 0) > (samples[0]?.majorGcs ?? 0);
}

/**
 * The worst p99 of a process outside the kills. A sample's p99 covers the period before it, so it is left out when
 * that period overlaps a kill window: from the SIGKILL to one sample period after the process is back (its clients'
 * retries, the other replica's extra load, the restarted process compiling its code). The first two samples of each
 * life are left out too: the first one's period holds the boot, the second one's the first requests, which compile
 * the code paths they take (a cold orders process answered its first orders with a p99 of 130 ms, and never again).
 */
function judgeDelay(
  series: ProcessSeries,
  kills: readonly KillMark[],
  settings: VerdictSettings,
): DelayFinding {
  const windows = kills.map((kill) => [kill.at, kill.backAt + settings.sampleSeconds] as const);
  const cold = new Set(livesOf(series.samples).flatMap((life) => life.slice(0, COLD_SAMPLES)));
  const judged = series.samples.filter((sample) => {
    if (cold.has(sample)) return false;
    const from = sample.at - settings.sampleSeconds;
    return !windows.some(([start, end]) => from < end && sample.at > start);
  });
  const worst = judged.reduce<SoakSample | undefined>(
    (top, sample) => (top === undefined || sample.eventLoopP99Ms > top.eventLoopP99Ms ? sample : top),
    undefined,
  );
  const worstMs = worst?.eventLoopP99Ms ?? 0;
  return {
    process: series.process,
    worstMs,
    worstAt: worst?.at ?? 0,
    excluded: series.samples.length - judged.length,
    ok: worstMs <= SOAK_LIMITS.eventLoopP99Ms,
  };
}
