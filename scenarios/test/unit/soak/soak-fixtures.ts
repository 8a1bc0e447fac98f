/** Hand-made series for the soak's unit tests. */
import type { ServiceName } from '../../../src/stack/stack.js';
import type { ProcessSeries, SoakSample } from '../../../src/soak/soak-series.js';

/** How {@link series} builds its samples. */
export interface SeriesShape {
  readonly service?: ServiceName;
  /** Seconds between samples. @default 10 */
  readonly period?: number;
  /** Time of the first sample. @default 0 */
  readonly from?: number;
  /** `process_start_time_seconds` of every sample. @default 1000 */
  readonly startedAt?: number;
  /** A full GC before every n-th sample. @default 3 */
  readonly gcEvery?: number;
  /** Event-loop delay p99 per sample (ms). @default 12 for all */
  readonly delayMs?: readonly number[];
  /** RSS per sample (MB). @default 150 for all */
  readonly rssMb?: readonly number[];
}

/** A process whose heap (MB) is `heapMb`, one sample each. */
export function series(process: string, heapMb: readonly number[], shape: SeriesShape = {}): ProcessSeries {
  const period = shape.period ?? 10;
  const gcEvery = shape.gcEvery ?? 3;
  return {
    process,
    service: shape.service ?? (process.replace(/-\d+$/, '') as ServiceName),
    samples: heapMb.map((heap, i): SoakSample => ({
      at: (shape.from ?? 0) + i * period,
      rssBytes: (shape.rssMb?.[i] ?? 150) * 1e6,
      heapUsedBytes: heap * 1e6,
      eventLoopP99Ms: shape.delayMs?.[i] ?? 12,
      majorGcs: gcEvery === 0 ? 1 : 1 + Math.floor(i / gcEvery),
      startedAt: shape.startedAt ?? 1000,
    })),
  };
}

/** A GC sawtooth: `n` samples climbing from `floor` by `step` MB and falling back every `every`, the floor raised by `drift` MB per sample. */
export function sawtooth(
  n: number,
  floor: number,
  options: { step?: number; every?: number; drift?: number } = {},
): number[] {
  const { step = 10, every = 3, drift = 0 } = options;
  return Array.from({ length: n }, (_, i) => floor + drift * i + (i % every) * step);
}

/** Two series joined: the second a new life (another start time) after the first. */
export function joined(a: ProcessSeries, b: ProcessSeries): ProcessSeries {
  return { ...a, samples: [...a.samples, ...b.samples] };
}
