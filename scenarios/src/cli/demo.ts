/**
 * `pnpm demo [name...]`: the whole system on this machine, every scenario, the tables, then everything stopped.
 *
 * Needs Node 24, a built tree (`pnpm demo` builds first) and a Redis: REDIS_URL if set; else a private redis-server
 * (started and stopped here); else a container through testcontainers. The services run as child processes from
 * their `dist`, on free ports, with fault injection on. A TCP gate between them and Redis lets the redis-down
 * scenario take Redis away whatever Redis was found (on a shared REDIS_URL the demo isolates its keys by prefix).
 *
 * Exit code: 0 only when every scenario ran and measured exactly its expected numbers.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SCENARIOS } from '../definitions/index.js';
import { formatResult, jsonReport, runAll } from '../engine/runner.js';
import { repoRoot } from '../repo-root.js';
import { startDemoStack, type DemoStack } from '../stack/demo-stack.js';
import { runCli } from './run-cli.js';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, out: { type: 'string' } },
  });
  const unknown = positionals.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    log(`Unknown scenario(s): ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
    return 2;
  }
  const chosen = positionals.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => positionals.includes(s.name));

  let starting: Promise<DemoStack> | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (stopping ??= (async () => {
      log('demo: stopping the services and Redis');
      // Interrupted while the services start: let them finish starting, then stop them (none is left behind).
      const demo = await starting?.catch(() => undefined);
      await demo?.close();
    })());
  const interrupted = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    log(`demo: ${signal}`);
    interrupted.abort();
    void shutdown().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    starting = startDemoStack({ log: (line) => log(`demo: ${line}`) });
    const { stack, target } = await starting;
    if (interrupted.signal.aborted) return 130;
    log(`demo: stack up, gateway at ${stack.urls.gateway}`);
    const outDir = values.out ?? join(repoRoot(), 'scenarios-out');
    const results = await runAll(chosen, target, {
      progress: log,
      outDir,
      signal: interrupted.signal,
    });
    if (interrupted.signal.aborted) return 130;
    return printResults(results, values.json, outDir) ? 0 : 1;
  } finally {
    await shutdown();
  }
}

/** Prints every table (or the JSON report); true when every scenario ran and measured its expected numbers. */
function printResults(results: Awaited<ReturnType<typeof runAll>>, json: boolean, outDir: string): boolean {
  if (json) console.log(JSON.stringify(jsonReport(results), null, 2));
  else {
    for (const result of results) console.log(`\n${formatResult(result)}`);
    console.log(`\nDiagrams of what happened: ${outDir}/<name>.md`);
  }
  const ok = results.every((result) => result.error === undefined && result.rows.every((row) => row.matches));
  log(ok ? 'demo: every scenario measured its expected numbers' : 'demo: SOME SCENARIOS DID NOT MATCH');
  return ok;
}

runCli(main, 'demo: ');
