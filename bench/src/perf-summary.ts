/**
 * On-CPU profiles of a chain's services, with Linux `perf` (a V8 `--cpu-prof` sample lands wherever the thread
 * was when the sampler looked, descheduled or not: on a loaded machine a process preempted inside `write(2)`
 * shows that write as its largest cost; `perf`'s `cpu-clock` samples only a thread that is running).
 *
 * 1. `HTTP_BENCH_NODE_ARGS=--perf-basic-prof HTTP_BENCH_SCENARIOS=fresh pnpm bench:http` adds a chain of this
 *    tree whose services write their JIT symbols for perf (`/tmp/perf-<pid>.map`);
 * 2. meanwhile, once its rounds run: `node bench/dist/perf-summary.js record <dir> [seconds=60]` records every
 *    service started with `--perf-basic-prof` (`perf record -g`, 499 Hz) into `<dir>`;
 * 3. `node bench/dist/perf-summary.js <dir> [top=12]`: per service, the main thread's samples by cost (the rules
 *    of profile-summary, the first that matches a frame of the stack), the JS functions nearest the leaf, and
 *    what its other threads (V8's compiler and GC helpers) ran besides.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { costOfFrames, top } from './profile-summary.js';

/** A perf frame as profile-summary's rules read one: the function's name and where its code lives. */
interface Frame {
  readonly functionName: string;
  readonly url: string;
}

/** `JS:*name url:line:col+0x12 (/tmp/perf-1.map)` (JIT code) or `symbol+0x12 (/usr/bin/node)` (native). */
function frameOf(line: string): Frame {
  const symbol = line
    .trim()
    .replace(/^[0-9a-f]+ /, '')
    .replace(/\+0x[0-9a-f]+ \(.*\)$/, '')
    .replace(/ \(.*\)$/, '');
  const js = /^JS:[*^~]?(\S*) (.+?)(?::\d+)*$/.exec(symbol);
  if (js !== null) return { functionName: js[1] ?? '', url: js[2] ?? '' };
  // V8's collector, named as a `.cpuprofile` names it, so the same rule matches.
  if (/Heap::|Scavenger|MarkCompact|Sweeper|ConcurrentMarking/.test(symbol))
    return { functionName: '(garbage collector)', url: '' };
  return { functionName: symbol, url: '' };
}

/** A file as profile-summary prints it: the package's own path, or the workspace folder's. */
const short = (url: string) =>
  url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/(apps|packages)\//, '$1/');

/** The services now running with `--perf-basic-prof`, by pid: `<app> (pid <pid>)`. */
function profiledServices(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const app = args.map((arg) => /\/apps\/([^/]+)\/dist\/main\.js$/.exec(arg)?.[1]).find(Boolean);
    if (app !== undefined && args.includes('--perf-basic-prof')) found[pid] = `${app} (pid ${pid})`;
  }
  return found;
}

function record(dir: string, seconds: number): void {
  const services = profiledServices();
  const pids = Object.keys(services);
  if (pids.length === 0) throw new Error('no service runs with --perf-basic-prof (HTTP_BENCH_NODE_ARGS)');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'services.json'), JSON.stringify(services));
  const out = join(dir, 'perf.data');
  const args = ['record', '-F', '499', '-g', '-o', out, '-p', pids.join(','), '--', 'sleep', String(seconds)];
  execFileSync('perf', args, { stdio: 'inherit' });
}

type Counts = Map<string, number>;
const add = (counts: Counts, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

function report(dir: string, n: number): void {
  const services = JSON.parse(readFileSync(join(dir, 'services.json'), 'utf8')) as Record<string, string>;
  const script = execFileSync('perf', ['script', '-i', join(dir, 'perf.data'), '-F', 'pid,tid,ip,sym'], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  const byService = new Map<string, { main: number; others: Counts; costs: Counts; js: Counts }>();
  for (const sample of script.split('\n\n')) {
    const [head, ...stack] = sample.split('\n').filter((line) => line.trim() !== '');
    const ids = /^\s*(\d+)\/(\d+)/.exec(head ?? '');
    const name = ids === null ? undefined : services[ids[1]!];
    if (name === undefined || ids === null || stack.length === 0) continue;
    let entry = byService.get(name);
    if (entry === undefined) {
      entry = { main: 0, others: new Map(), costs: new Map(), js: new Map() };
      byService.set(name, entry);
    }
    const frames = stack.map(frameOf);
    if (ids[1] !== ids[2]) {
      add(entry.others, frames[0]!.functionName.replace(/<.*$/, '').slice(0, 80));
      continue;
    }
    entry.main += 1;
    add(entry.costs, costOfFrames(frames));
    const js = frames.find((frame) => frame.url !== '');
    add(
      entry.js,
      js === undefined ? '(no JS on the stack)' : `${js.functionName || '(anonymous)'} ${short(js.url)}`,
    );
  }
  for (const [name, { main, others, costs, js }] of [...byService].sort()) {
    const other = [...others.values()].reduce((sum, count) => sum + count, 0);
    console.log(`\n## ${name}: ${main} main-thread samples, other threads ${other} more`);
    console.log(
      `main thread by cost (the first rule matching a frame of the stack):\n${top(costs, 20, main)}`,
    );
    console.log(`main thread, the JS function nearest the leaf:\n${top(js, n, main)}`);
    console.log(`other threads (of the main thread's samples):\n${top(others, 5, main)}`);
  }
}

const [command, dir, arg] = process.argv.slice(2);
if (command === 'record' && dir !== undefined) record(dir, Number(arg ?? 60));
else if (command !== undefined && command !== 'record') report(command, Number(dir ?? 12));
else throw new Error('usage: perf-summary record <dir> [seconds] | perf-summary <dir> [top]');
