/** Latency summary of one measured phase, in milliseconds. */
export interface LatencySummary {
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Summarises durations given in nanoseconds (from `process.hrtime.bigint()`), reported in milliseconds. */
export function summarise(durationsNs: readonly bigint[]): LatencySummary {
  const ms = durationsNs.map((ns) => Number(ns) / 1e6).sort((a, b) => a - b);
  const total = ms.reduce((sum, value) => sum + value, 0);
  return {
    samples: ms.length,
    p50: round(percentile(ms, 50), 4),
    p99: round(percentile(ms, 99), 4),
    mean: round(total / Math.max(1, ms.length), 4),
    min: round(ms[0] ?? Number.NaN, 4),
    max: round(ms[ms.length - 1] ?? Number.NaN, 4),
  };
}

/** The median of `values`: the upper middle one of an even count (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Rounds to `digits` decimals (keeps the JSON readable). */
export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Times each of `fns` `n` times, interleaved (one of each, then again), so all see the same machine load and their
 * ratios compare like with like even when other processes come and go.
 */
export async function measureInterleaved(
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
