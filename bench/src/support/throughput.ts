import type { Redis } from 'ioredis';

/** What {@link measureThroughput} counted. */
export interface ThroughputResult {
  readonly concurrency: number;
  readonly durationMs: number;
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly errors: number;
}

/**
 * `concurrency` workers call `op(worker, i)` back to back until `durationMs` has passed: the number of calls in
 * flight stays at `concurrency` for the whole window. A rejected call counts as an error, not as an op.
 */
export async function measureThroughput(
  concurrency: number,
  durationMs: number,
  op: (worker: number, i: number) => Promise<unknown>,
): Promise<ThroughputResult> {
  let ops = 0;
  let errors = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(durationMs) * 1_000_000n;
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; process.hrtime.bigint() < deadline; i++) {
      try {
        await op(w, i);
        ops++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  return {
    concurrency,
    durationMs: Math.round(elapsedMs),
    ops,
    opsPerSecond: Math.round((ops * 1000) / elapsedMs),
    errors,
  };
}

/**
 * Microseconds Redis spends per call of `command` while `run` runs, from `INFO commandstats` after
 * `CONFIG RESETSTAT` (for `evalsha`: the script and every command it runs). Excludes reading, parsing and
 * answering the request, so `1e6 / usec` is an upper bound no client reaches: the Redis-side limit.
 */
export async function redisUsecPerCall(
  admin: Redis,
  command: string,
  run: () => Promise<void>,
): Promise<number> {
  await admin.config('RESETSTAT');
  await run();
  const stats = await admin.info('commandstats');
  const usec = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(stats);
  if (!usec) throw new Error(`no ${command} in INFO commandstats`);
  return Number(usec[2]) / Number(usec[1]);
}
