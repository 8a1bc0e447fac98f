/**
 * `pnpm scenarios [name...] [--json] [--out <dir>]`: runs the scenarios against a RUNNING stack and prints what it
 * measured, one table per scenario, plus `scenarios-out/<name>.md` with a Mermaid sequence diagram per design.
 *
 * The stack: `FAULTS_ENABLED=true pnpm stack`, or docker compose with `docker-compose.scenarios.yml`. URLs from env
 * (defaults are `pnpm stack`'s): GATEWAY_URL, ORDERS_URL, PAYMENTS_URL, PROVIDER_URL, WORKER_URL, and
 * GATEWAY_ADMIN_URL (the gateway's admin listener, where its `/__*` routes are: never on its public port); ADMIN_TOKEN
 * when the services demand one (the compose override's demo token). The runner takes
 * Redis away only when given the commands to: REDIS_STOP_CMD and REDIS_START_CMD (e.g. `docker compose stop redis`
 * / `docker compose start redis`); otherwise the redis-down rows say how to run them. The db-effect, apply-once
 * and outbox rows kill orders and wait for its supervisor (pnpm stack, compose) to start it again. REDIS_URL is
 * not needed: everything goes through the services' admin routes.
 *
 * Exit code: 0 when every row that ran measured its expected numbers, 1 otherwise, 2 for bad usage or a stack that
 * is not there.
 */
import { parseArgs } from 'node:util';
import { formatResult, jsonReport, runAll } from '../engine/runner.js';
import { repoRoot } from '../repo-root.js';
import { SCENARIOS } from '../definitions/index.js';
import {
  adminHeaders,
  adminUrlOf,
  commandRedisControl,
  httpTarget,
  type Service,
  supervisedRestart,
  type ScenarioTarget,
  type StackUrls,
} from '../engine/target.js';
import { send } from '../engine/http.js';
import { join } from 'node:path';
import { runCli } from './run-cli.js';

const USAGE = `Usage: pnpm scenarios [name...] [--json] [--out <dir>]
Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')} (default: all)
Env: GATEWAY_URL, ORDERS_URL, PAYMENTS_URL, PROVIDER_URL, WORKER_URL (defaults: 127.0.0.1:3000-3004),
     GATEWAY_ADMIN_URL (default 127.0.0.1:9401: the gateway's /__* routes), ADMIN_TOKEN (when the services demand it),
     REDIS_STOP_CMD + REDIS_START_CMD (let the runner take Redis away for redis-down).
The services must run with FAULTS_ENABLED=true.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const unknown = positionals.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown scenario(s): ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  const chosen = positionals.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => positionals.includes(s.name));

  const found = await runningStack(process.env);
  if ('problems' in found) {
    console.error(`The stack is not ready:\n  ${found.problems.join('\n  ')}\n\n${USAGE}`);
    return 2;
  }
  const target = found.target;

  const outDir = values.out ?? join(repoRoot(), 'scenarios-out');
  // Ctrl-C: no new scenario starts; the one running finishes its row (the stack is left reset by the next run).
  const interrupted = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('scenarios: SIGINT, stopping after the current scenario\n');
    interrupted.abort();
  });
  const results = await runAll(chosen, target, {
    progress: (line) => process.stderr.write(`${line}\n`),
    outDir,
    signal: interrupted.signal,
  });
  if (values.json) {
    console.log(JSON.stringify(jsonReport(results), null, 2));
  } else {
    for (const result of results) console.log(`\n${formatResult(result)}`);
    console.log(`\nDiagrams: ${outDir}/<name>.md`);
  }
  const failed = results.filter(
    (result) =>
      result.error !== undefined || result.rows.some((row) => !row.matches && row.skipped === undefined),
  );
  return failed.length === 0 ? 0 : 1;
}

/** The running stack the env names (defaults: `pnpm stack`'s ports), or why it cannot be used. */
async function runningStack(
  env: NodeJS.ProcessEnv,
): Promise<{ target: ScenarioTarget } | { problems: string[] }> {
  const first = (list: string): string => (list.split(',')[0] ?? list).trim().replace(/\/+$/, '');
  const urls: StackUrls = {
    gateway: first(env['GATEWAY_URL'] ?? 'http://127.0.0.1:3000'),
    orders: first(env['ORDERS_URL'] ?? 'http://127.0.0.1:3001'),
    payments: first(env['PAYMENTS_URL'] ?? 'http://127.0.0.1:3002'),
    provider: first(env['PROVIDER_URL'] ?? 'http://127.0.0.1:3003'),
    admin: { gateway: first(env['GATEWAY_ADMIN_URL'] ?? 'http://127.0.0.1:9401') },
    ...(env['ADMIN_TOKEN'] ? { adminToken: env['ADMIN_TOKEN'] } : {}),
  };
  const problems: string[] = [];
  for (const service of ['gateway', 'orders', 'payments', 'provider'] as const) {
    const problem = await preflight(urls, service);
    if (problem !== undefined) problems.push(`${service} at ${urls[service]}: ${problem}`);
  }
  // The worker is optional unless named: without it the jobs scenario says it was skipped.
  const workerUrl = first(env['WORKER_URL'] ?? 'http://127.0.0.1:3004');
  const workerProblem = await preflight({ ...urls, worker: workerUrl }, 'worker');
  if (workerProblem !== undefined && env['WORKER_URL'] !== undefined) {
    problems.push(`worker at ${workerUrl}: ${workerProblem}`);
  }
  if (problems.length > 0) return { problems };
  const stopCommand = env['REDIS_STOP_CMD'];
  const startCommand = env['REDIS_START_CMD'];
  const stackUrls = workerProblem === undefined ? { ...urls, worker: workerUrl } : urls;
  const target = httpTarget(stackUrls, {
    ...(stopCommand && startCommand ? { redisControl: commandRedisControl(stopCommand, startCommand) } : {}),
    // The orders scenarios kill orders at a fault point: pnpm stack and compose start it again by themselves.
    restartControl: supervisedRestart(stackUrls),
  });
  return { target };
}

/** Why `service` cannot be used for scenarios, or `undefined`. */
async function preflight(urls: StackUrls, service: Service): Promise<string | undefined> {
  try {
    const health = await send(`${urls[service] ?? ''}/health`, { timeoutMs: 3_000 });
    if (health.status !== 200) return `GET /health answered ${health.status}`;
    const admin = adminUrlOf(urls, service);
    const faults = await send(`${admin}/__faults`, { timeoutMs: 3_000, headers: adminHeaders(urls) });
    if (faults.status === 401)
      return `${admin}/__faults answered 401: set ADMIN_TOKEN to the services' token`;
    if (faults.status !== 200) {
      return `no ${admin}/__faults: start the services with FAULTS_ENABLED=true (the gateway's on GATEWAY_ADMIN_URL)`;
    }
    return undefined;
  } catch (error) {
    return `unreachable (${(error as Error).message})`;
  }
}

runCli(main);
