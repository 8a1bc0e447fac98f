import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { promelaOf, type StoreKind, type Transition } from '../../model/transitions.js';

const execute = promisify(execFile);

/** Runs `file` in `dir`; its output even when it exits non-zero (pan does on an error); clear when not installed. */
async function run(file: string, args: string[], dir: string): Promise<string> {
  try {
    const { stdout } = await execute(file, args, { cwd: dir, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(`${file} not found: apt-get install -y spin gcc (bash scripts/setup.sh test)`, {
        cause: error,
      });
    }
    if (file === './pan' && failure.stdout) return failure.stdout;
    throw new Error(`${file} ${args.join(' ')} failed: ${failure.stderr ?? failure.message}`, {
      cause: error,
    });
  }
}
const MODEL = fileURLToPath(new URL('../../model/record.pml', import.meta.url));

/** safety: assertions and invalid end states (`-DSAFETY`); progress: the LTL claim under weak fairness (`-a -f`). */
export type SpinCheck = 'safety' | 'progress';

/** The model's bounds (record.pml's defaults where left out). */
export interface ModelBounds {
  /** Owner tokens of the first client (the others have one each). */
  readonly ATTEMPTS?: number;
  /** Replies lost on the wire (or calls lost before they ran), in all. */
  readonly LOSSES?: number;
  /** Record lifetimes that end: the key's generations after the first. */
  readonly EXPIRIES?: number;
}

export interface SpinJob {
  readonly store: StoreKind;
  readonly check: SpinCheck;
  readonly transitions: readonly Transition[];
  readonly bounds: ModelBounds;
  /** Broken store mechanisms of record.pml to switch on. */
  readonly defines?: readonly string[];
  /**
   * A search of the whole state space: pan compiled with -O1 and -DCOLLAPSE (states stored compressed, about a
   * third of the memory), rather than -O0 for a search that should stop at its first error.
   */
  readonly optimise: boolean;
  /** log2 of the hash table's slots. @default 22 */
  readonly hashBits?: number;
}

export interface SpinReport {
  readonly errors: number;
  readonly statesStored: number;
  /** States visited: the same as stored for a safety search; more under the fairness construction. */
  readonly statesVisited: number;
  readonly transitions: number;
  readonly depth: number;
  /** pan's own search time. */
  readonly searchSeconds: number;
  /** Search, generation and compilation. */
  readonly totalSeconds: number;
  /** pan's first error line (`pan:1: ...`), if any. */
  readonly violation: string | undefined;
  readonly complete: boolean;
  readonly output: string;
}

const number = (output: string, pattern: RegExp): number => Number(pattern.exec(output)?.[1] ?? NaN);

/** Generates the table's Promela beside a copy of record.pml, compiles pan with gcc, runs it, reads its report. */
export async function runSpin(job: SpinJob): Promise<SpinReport> {
  const started = process.hrtime.bigint();
  const dir = await mkdtemp(join(tmpdir(), 'record-model-'));
  try {
    await copyFile(MODEL, join(dir, 'record.pml'));
    await writeFile(join(dir, 'transitions.pml'), promelaOf(job.transitions));
    const defines = [
      `-DSTORE_${job.store.toUpperCase()}`,
      ...Object.entries(job.bounds).map(([name, value]) => `-D${name}=${value}`),
      ...(job.defines ?? []).map((name) => `-D${name}`),
    ];
    await run('spin', [...defines, '-a', 'record.pml'], dir);
    const safety = job.check === 'safety';
    await run(
      'gcc',
      [
        '-w',
        ...(job.optimise ? ['-O1', '-DCOLLAPSE'] : ['-O0']),
        ...(safety ? ['-DSAFETY', '-DNOCLAIM'] : ['-DNFAIR=3']),
        '-o',
        'pan',
        'pan.c',
      ],
      dir,
    );
    // -n: no list of unreached code; -w: the hash table's size; -a -f: acceptance cycles under weak fairness.
    const pan = ['-n', `-w${job.hashBits ?? 22}`, ...(safety ? [] : ['-a', '-f'])];
    const stdout = await run('./pan', pan, dir);
    const stored = number(stdout, /(\d+) states, stored/);
    const visited = /states, stored \(([\d.e+]+) visited\)/.exec(stdout)?.[1];
    return {
      errors: number(stdout, /errors: (\d+)/),
      statesStored: stored,
      statesVisited: visited === undefined ? stored : Number(visited),
      transitions: number(stdout, /([\d.e+]+) transitions/),
      depth: number(stdout, /depth reached (\d+)/),
      searchSeconds: number(stdout, /elapsed time ([\d.e+]+) seconds/),
      totalSeconds: Number(process.hrtime.bigint() - started) / 1e9,
      violation: /^pan:1: (.*)$/m.exec(stdout)?.[1],
      complete: !/Search not completed|max search depth too small|out of memory/.test(stdout),
      output: stdout,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `jobs` in order, at most `parallel` at a time; each promise settles with its own job. */
export function runAll<K extends string>(
  jobs: Record<K, SpinJob>,
  parallel: number,
): Record<K, Promise<SpinReport>> {
  let active = 0;
  const waiting: (() => void)[] = [];
  const slot = async (): Promise<void> => {
    if (active >= parallel) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
  };
  const free = (): void => {
    active -= 1;
    waiting.shift()?.();
  };
  const entries = (Object.entries(jobs) as [K, SpinJob][]).map(
    ([name, job]) => [name, slot().then(() => runSpin(job).finally(free))] as const,
  );
  return Object.fromEntries(entries) as Record<K, Promise<SpinReport>>;
}

/** One line per run, for the soak's log and the docs' figures. */
export function describeRun(name: string, r: SpinReport): string {
  const visited = r.statesVisited === r.statesStored ? '' : ` (${r.statesVisited.toExponential(2)} visited)`;
  return `${name}: ${r.errors === 0 ? 'verified' : `refuted: ${r.violation ?? '?'}`}, ${r.statesStored} states${visited}, depth ${r.depth}, search ${r.searchSeconds} s, in all ${r.totalSeconds.toFixed(1)} s`;
}
