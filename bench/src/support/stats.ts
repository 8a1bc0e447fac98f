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

/** One phase's latency, and the CPU time this process spent per call (user + system, every thread), in µs. */
export interface LatencyAndCpu {
  readonly latency: LatencySummary;
  readonly cpuUsPerCall: number;
}

/**
 * Times each of `fns` `n` times, interleaved (one of each, then again), so all see the same machine load and their
 * ratios compare like with like even when other processes come and go.
 */
export async function measureInterleaved(
  n: number,
  fns: readonly ((i: number) => Promise<unknown>)[],
): Promise<LatencySummary[]> {
  return (await interleave(n, fns, false)).map(({ latency }) => latency);
}

/**
 * {@link measureInterleaved}, with the CPU time of this process around each call (read outside the timed window).
 * Where the callee runs in this process (an in-process server driven over loopback), that is client and server.
 */
export function measureInterleavedWithCpu(
  n: number,
  fns: readonly ((i: number) => Promise<unknown>)[],
): Promise<LatencyAndCpu[]> {
  return interleave(n, fns, true);
}

async function interleave(
  n: number,
  fns: readonly ((i: number) => Promise<unknown>)[],
  withCpu: boolean,
): Promise<LatencyAndCpu[]> {
  const durations = fns.map((): bigint[] => []);
  const cpuUs = fns.map(() => 0);
  for (let i = 0; i < n; i++) {
    for (const [j, fn] of fns.entries()) {
      const cpu = withCpu ? process.cpuUsage() : undefined;
      const started = process.hrtime.bigint();
      await fn(i);
      durations[j]!.push(process.hrtime.bigint() - started);
      if (cpu === undefined) continue;
      const used = process.cpuUsage(cpu);
      cpuUs[j]! += used.user + used.system;
    }
  }
  return durations.map((d, j) => ({ latency: summarise(d), cpuUsPerCall: cpuUs[j]! / Math.max(1, n) }));
}
