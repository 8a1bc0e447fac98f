/** CPU time of processes from Linux /proc: what each service of a chain spends, read from outside it. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { childrenOf } from '@retry-safe/testing';

// USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 10 ms on Linux.
const MS_PER_TICK = 10;

/** The fields of /proc/<pid>/stat after the parenthesised command (which may hold spaces): field 3 onwards. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) of `pid` so far: the scheduler's run time of each of its threads (`/proc/<pid>/task/<tid>/schedstat`,
 * in nanoseconds), else user + system from `/proc/<pid>/stat`, in 10 ms ticks (a window of a few hundred ticks
 * is off by several percent either way). A thread that exits during a window takes its time with it: Node's and
 * the stores' threads live as long as their process. `undefined` when the process is gone or there is no /proc.
 */
export function cpuMsOf(pid: number): number | undefined {
  return SCHEDSTAT ? runTimeMsOf(pid) : tickMsOf(pid);
}

// Whether this kernel keeps per-thread run times (CONFIG_SCHED_INFO): decided once, so a window never mixes the two.
const SCHEDSTAT = existsSync('/proc/self/schedstat');

function runTimeMsOf(pid: number): number | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const tid of threads) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
    } catch {
      // The thread exited since the listing.
    }
  }
  return ns / 1e6;
}

function tickMsOf(pid: number): number | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** The parent pid of `pid` (field 4). */
export function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** CPU time (ms) of `root` and of each process it forked, by pid. */
export function treeCpuMs(root: number): Map<number, number> {
  const found = new Map<number, number>();
  for (const pid of [root, ...childrenOf(root)]) {
    const ms = cpuMsOf(pid);
    if (ms !== undefined) found.set(pid, ms);
  }
  return found;
}

/**
 * CPU (ms) the tree spent between two {@link treeCpuMs} snapshots: processes that appeared count from 0 (a new
 * connection's backend); processes that exited in between are lost (their last figures are not in `after`).
 */
export function treeCpuDelta(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
