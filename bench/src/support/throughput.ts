import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** What {@link measureThroughput} counted. */
export interface ThroughputResult {
  readonly concurrency: number;
  readonly durationMs: number;
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly errors: number;
  /**
   * CPU time this Node process spent per op during the window (user + system, µs). Unlike ops/s it barely moves
   * when other processes compete for the cores: the figure to compare on a shared machine.
   */
  readonly nodeCpuUsPerOp: number;
  /** CPU time the Redis server spent per op (µs), when its process can be read (Linux /proc). */
  readonly redisCpuUsPerOp: number | undefined;
}

/**
 * `concurrency` workers call `op(worker, i)` back to back until `durationMs` has passed: the number of calls in
 * flight stays at `concurrency` for the whole window. A rejected call counts as an error, not as an op.
 */
export async function measureThroughput(
  concurrency: number,
  durationMs: number,
  op: (worker: number, i: number) => Promise<unknown>,
  redisCpuUs?: () => number | undefined,
): Promise<ThroughputResult> {
  let ops = 0;
  let errors = 0;
  const cpuAtStart = process.cpuUsage();
  const redisAtStart = redisCpuUs?.();
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
  const cpu = process.cpuUsage(cpuAtStart);
  const redisAtEnd = redisCpuUs?.();
  const perOp = (us: number) => Math.round((us / Math.max(1, ops)) * 100) / 100;
  return {
    concurrency,
    durationMs: Math.round(elapsedMs),
    ops,
    opsPerSecond: Math.round((ops * 1000) / elapsedMs),
    errors,
    nodeCpuUsPerOp: perOp(cpu.user + cpu.system),
    redisCpuUsPerOp:
      redisAtStart === undefined || redisAtEnd === undefined ? undefined : perOp(redisAtEnd - redisAtStart),
  };
}

/**
 * Reads the CPU time (µs, user + system) of the redis-server behind `admin` from /proc, or `undefined` where
 * there is no /proc (the figure is then left out).
 */
export async function redisCpuReader(admin: Redis): Promise<() => number | undefined> {
  const pid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  const ticksToUs = 1e6 / 100; // USER_HZ is 100 on Linux
  return () => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * ticksToUs;
    } catch {
      return undefined;
    }
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
