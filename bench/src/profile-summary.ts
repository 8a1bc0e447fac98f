/**
 * `node bench/dist/profile-summary.js <dir> [top]`: the largest costs in the `.cpuprofile` files under `<dir>` (as
 * written by `HTTP_BENCH_CPU_PROF=<dir> pnpm bench:http`, one folder per chain and service): for each folder, the
 * share of sampled time by package (a `node_modules` package, a workspace folder, or Node itself) and the functions
 * with the most self time, and with the most total time (self + callees) outside Node's internals; and the share
 * of each package with the Node work it called (what tracing costs: the OpenTelemetry packages' sum).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a frame's code lives: a package name, a workspace folder, `node:` internals, or the VM itself. */
function packageOf(url: string): string {
  if (url === '') return '(native: syscalls, gc, program)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const workspace = /\/(apps|packages)\/([^/]+)\//.exec(url);
  return workspace === null ? url : `${workspace[1]}/${workspace[2]}`;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/(apps|packages)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/**
 * What a sample is spent on, by the first rule (most specific first) that matches a frame of its stack: the named
 * costs docs/benchmarks.md compares per hop. The rest is `other` (Node's event loop, promises, timers).
 */
export const COSTS: readonly (readonly [string, RegExp])[] = [
  [
    'request log line (Nest Logger, pino, a sync write per line)',
    // pino's own frames too: a JIT that inlines Nest's Logger into its caller leaves no frame of it in perf's stacks.
    /@nestjs\/common\/services\/(console-)?logger\.service|\/node_modules\/(pino|nestjs-pino|sonic-boom)\//,
  ],
  ['PostgreSQL statements (pg, Kysely)', /\/node_modules\/(pg|pg-protocol|pg-pool|kysely)\//],
  ['Redis commands (ioredis, the store)', /\/node_modules\/ioredis\/|\/idempotency\/dist\/redis\//],
  ['outgoing HTTP call (http-client, axios)', /\/node_modules\/axios|\/packages\/http-client\//],
  ['JSON body parsing (body-parser)', /\/node_modules\/(body-parser|raw-body)\//],
  ['answer serialisation and write (express res.json)', /\/node_modules\/express\/lib\/response\.js/],
  ['validation (zod)', /\/node_modules\/zod\//],
  ['metrics (prom-client)', /\/node_modules\/prom-client\//],
  [
    'routing and pipeline (express router, Nest)',
    /\/node_modules\/(router|express|@nestjs|path-to-regexp|rxjs)\//,
  ],
  ['garbage collection', /^\(garbage collector\)$/],
  ['incoming HTTP (node:http server)', /^node:_http_(server|incoming|common|outgoing)$/],
];

const NODE_ITSELF = new Set(['node internals', '(native: syscalls, gc, program)']);

/**
 * The package of the innermost frame outside Node (internals, natives), so that Node's work goes to the package that
 * asked for it (a `new URL()` to the instrumentation that parses); `(event loop, gc)` when none is on the stack.
 */
function callerOf(stack: readonly ProfileNode[]): string {
  const name = stack[0]?.callFrame.functionName ?? '';
  if (name === '(garbage collector)' || name === '(program)') return name;
  for (const frame of stack) {
    const pkg = packageOf(frame.callFrame.url);
    if (!NODE_ITSELF.has(pkg)) return pkg;
  }
  return '(event loop, nothing of the app on the stack)';
}

/** The {@link COSTS} row of a sample whose stack holds `frames` (a `.cpuprofile`'s call frames, or perf's). */
export function costOfFrames(
  frames: readonly { readonly functionName: string; readonly url: string }[],
): string {
  const found = COSTS.find(([, rule]) => frames.some((f) => rule.test(f.url) || rule.test(f.functionName)));
  return found?.[0] ?? 'other (event loop, promises, timers, app code)';
}

function costOf(stack: readonly ProfileNode[]): string {
  return costOfFrames(stack.map((frame) => frame.callFrame));
}

/** Self and total (inclusive) sampled microseconds per frame name, and self per package. */
function summarise(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const packages = new Map<string, number>();
  const under = new Map<string, number>();
  const costs = new Map<string, number>();
  const callers = new Map<string, number>();
  let all = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    all += us;
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + us);
    const pkg = packageOf(node.callFrame.url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
    // Each frame name counted once per sample stack, however deep its recursion.
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    const cost = costOf(stack);
    costs.set(cost, (costs.get(cost) ?? 0) + us);
    const caller = callerOf(stack);
    callers.set(caller, (callers.get(caller) ?? 0) + us);
    const seen = new Set<string>();
    const seenPackages = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      const pkgOf = packageOf(frame.callFrame.url);
      if (!seenPackages.has(pkgOf)) {
        seenPackages.add(pkgOf);
        under.set(pkgOf, (under.get(pkgOf) ?? 0) + us);
      }
      const key = frameName(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  }
  return { self, total, packages, under, costs, callers, all, idle };
}

/** The `n` largest entries of `map`, each as its share of `all`, one line each. */
export function top(
  map: ReadonlyMap<string, number>,
  n: number,
  all: number,
  skip: (k: string) => boolean = () => false,
) {
  return [...map]
    .filter(([key]) => !skip(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, amount]) => `  ${((100 * amount) / all).toFixed(1).padStart(5)} %  ${key}`)
    .join('\n');
}

function profilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? profilesUnder(path) : entry.endsWith('.cpuprofile') ? [path] : [];
  });
}

function main(): void {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: profile-summary <dir> [top]');
  const n = Number(process.argv[3] ?? 15);
  for (const file of profilesUnder(dir).sort()) {
    const { self, total, packages, under, costs, callers, all, idle } = summarise(
      JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
    );
    console.log(
      `\n## ${file.slice(dir.length + 1)}: ${(all / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle`,
    );
    console.log(`by cost (the first rule matching a frame of the sample's stack):\n${top(costs, 20, all)}`);
    console.log(`by package (self time):\n${top(packages, 12, all)}`);
    console.log(`by package, total time (the package anywhere on the stack):\n${top(under, 16, all)}`);
    console.log(
      `by package, with the Node work it called (the innermost frame outside Node):\n${top(callers, 16, all)}`,
    );
    const tracing = [...callers].filter(([pkg]) => pkg.startsWith('@opentelemetry/'));
    const tracingUs = tracing.reduce((sum, [, us]) => sum + us, 0);
    console.log(
      `OpenTelemetry packages, with the Node work they called: ${((100 * tracingUs) / all).toFixed(1)} %`,
    );
    console.log(`functions, self time:\n${top(self, n, all)}`);
    const internal = (key: string) =>
      / node:|\(program\)|\(garbage collector\)|\(root\)|processTicksAndRejections/.test(key);
    console.log(`functions, total time (outside node internals):\n${top(total, n, all, internal)}`);
  }
}

// perf-summary imports the rules: run only as the script itself.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
