/**
 * What `pnpm soak` prints: every process's series (one table per measure, a row per sample, the kills and restarts
 * marked) and the verdict, per process life.
 */
import { SOAK_LIMITS } from './soak-options.js';
import { livesOf, type KillMark, type ProcessSeries, type SoakSample } from './soak-series.js';
import { HeapStatus, percent, type SoakVerdict } from './soak-verdict.js';

/** The three measures of a sample, as the tables print them. */
export const MEASURES = [
  { title: 'RSS (MB)', of: (s: SoakSample) => s.rssBytes / 1e6 },
  { title: 'heap used (MB)', of: (s: SoakSample) => s.heapUsedBytes / 1e6 },
  { title: 'event-loop delay p99 (ms)', of: (s: SoakSample) => s.eventLoopP99Ms },
] as const;

/** What the tables need of the run. */
export interface SeriesTableInput {
  readonly series: readonly ProcessSeries[];
  readonly kills: readonly KillMark[];
  readonly sampleSeconds: number;
}

const MB = (bytes: number | undefined): string =>
  bytes === undefined ? '-' : `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * One table per measure: a row per sample tick (time since the start, then each process's value; `-` when it had
 * none, `*` on the first sample of a new life), with the kills that happened since the row before.
 */
export function formatSeries(input: SeriesTableInput): string {
  const ticks = tickRows(input);
  const width = Math.max(9, ...input.series.map((s) => s.process.length + 2));
  const header = `${'t (s)'.padStart(6)}${input.series.map((s) => s.process.padStart(width)).join('')}`;
  const firsts = new Set(input.series.flatMap((s) => livesOf(s.samples).map((life) => life[0])));
  return MEASURES.map((measure) => {
    const rows = ticks.map(({ at, samples, note }) => {
      const cells = samples.map((sample) => {
        if (sample === undefined) return '- '.padStart(width);
        const mark = firsts.has(sample) ? '*' : ' ';
        return `${measure.of(sample).toFixed(0)}${mark}`.padStart(width);
      });
      return `${at.toFixed(0).padStart(6)}${cells.join('')}${note === '' ? '' : `   ${note}`}`;
    });
    return [`${measure.title}; * the first sample of a life (a start), - none`, header, ...rows].join('\n');
  }).join('\n\n');
}

/** The samples of every process, grouped by tick (the sampler scrapes them all at once every period). */
function tickRows(
  input: SeriesTableInput,
): Array<{ at: number; samples: Array<SoakSample | undefined>; note: string }> {
  const tickOf = (at: number): number => Math.round(at / input.sampleSeconds);
  const last = Math.max(0, ...input.series.flatMap((s) => s.samples.map((sample) => tickOf(sample.at))));
  return Array.from({ length: last + 1 }, (_, tick) => {
    const at = tick * input.sampleSeconds;
    const kills = input.kills.filter((kill) => kill.at > at - input.sampleSeconds && kill.at <= at);
    return {
      at,
      samples: input.series.map((s) => s.samples.find((sample) => tickOf(sample.at) === tick)),
      note: kills
        .map(
          (kill) => `${kill.process} killed at ${kill.at.toFixed(1)} s, back at ${kill.backAt.toFixed(1)} s`,
        )
        .join('; '),
    };
  });
}

/** The verdict: per process life its heap early and late, per process its worst event-loop delay, the result. */
export function formatVerdict(verdict: SoakVerdict): string {
  const heapRows = verdict.heap.map((f) =>
    [
      `${f.process} (life ${f.life})`.padEnd(22),
      (f.from > f.to ? '-' : `${f.from.toFixed(0)}-${f.to.toFixed(0)} s`).padStart(11),
      MB(f.early).padStart(10),
      MB(f.late).padStart(10),
      (f.growth === undefined ? '-' : percent(f.growth)).padStart(9),
      `   ${f.status}`,
    ].join(''),
  );
  const delayRows = verdict.delay.map((f) =>
    [
      f.process.padEnd(22),
      `${f.worstMs.toFixed(1)} ms`.padStart(11),
      `${f.worstAt.toFixed(0)} s`.padStart(10),
      String(f.excluded).padStart(10),
      `   ${f.ok ? 'ok' : 'too slow'}`,
    ].join(''),
  );
  const judged = verdict.heap.filter((f) => f.status === HeapStatus.Ok || f.status === HeapStatus.Grew);
  return [
    `heap: lowest of the first third after warm-up -> lowest of the last third (limit ${percent(SOAK_LIMITS.heapGrowth)}); ${judged.length} of ${verdict.heap.length} lives judged`,
    `${'process'.padEnd(22)}${'judged'.padStart(11)}${'first'.padStart(10)}${'last'.padStart(10)}${'growth'.padStart(9)}   verdict`,
    ...heapRows,
    '',
    `event-loop delay: worst p99 outside the kills (limit ${SOAK_LIMITS.eventLoopP99Ms} ms)`,
    `${'process'.padEnd(22)}${'worst p99'.padStart(11)}${'at'.padStart(10)}${'left out'.padStart(10)}   verdict`,
    ...delayRows,
    ...(verdict.problems.length > 0 ? ['', 'problems:', ...verdict.problems.map((line) => `  ${line}`)] : []),
  ].join('\n');
}
