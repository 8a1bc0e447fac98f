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
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPrivateRedisServer, startRedis, type RedisHandle } from '@retry-safe/testing';
import { startStack, type Stack } from '../stack/stack.js';
import { SCENARIOS } from '../definitions/index.js';
import { startRedisGate, type RedisGate } from '../engine/redis-gate.js';
import { formatResult, jsonReport, runAll } from '../engine/runner.js';
import { repoRoot } from '../repo-root.js';
import { stackTarget } from '../engine/stack-target.js';
import { spawn } from 'node:child_process';
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

  let redis: RedisHandle | undefined;
  let gate: RedisGate | undefined;
  let starting: Promise<Stack> | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (stopping ??= (async () => {
      log('demo: stopping the services and Redis');
      // Interrupted while the services start: let them finish starting, then stop them (none is left behind).
      const stack = await starting?.catch(() => undefined);
      await stack?.close().catch((error: unknown) => log(`demo: ${String(error)}`));
      await gate?.close().catch(() => {});
      await redis?.close().catch((error: unknown) => log(`demo: ${String(error)}`));
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
    redis = await findRedis();
    log(`demo: Redis from ${describeSource(redis)} at ${redis.url}`);
    gate = await startRedisGate(redis);
    log('demo: starting provider-sim, payments, orders, gateway and invoice-worker (FAULTS_ENABLED=true)');
    starting = startDemoStack(gate.url);
    const stack = await starting;
    if (interrupted.signal.aborted) return 130;
    log(`demo: stack up, gateway at ${stack.urls.gateway}`);
    const outDir = values.out ?? join(repoRoot(), 'scenarios-out');
    const results = await runAll(chosen, stackTarget(stack, gate), {
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

/** The whole stack on the gate's Redis, isolated even on a shared Redis: its own records and its own queue. */
function startDemoStack(redisUrl: string): Promise<Stack> {
  const tag = `demo-${randomUUID().slice(0, 8)}`;
  return startStack({
    redisUrl,
    payments: { IDEMPOTENCY_KEY_PREFIX: `${tag}:idem:` },
    orders: { BULLMQ_PREFIX: tag },
    worker: { BULLMQ_PREFIX: tag, IDEMPOTENCY_KEY_PREFIX: `${tag}:idem:` },
  });
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

/** REDIS_URL; else a private redis-server; else testcontainers (startRedis tries a container when Docker answers). */
async function findRedis(): Promise<RedisHandle> {
  if (process.env['REDIS_URL']) return startRedis();
  if (await hasRedisServer()) return startPrivateRedisServer();
  try {
    return await startRedis();
  } catch (error) {
    throw new Error(
      'no Redis: set REDIS_URL, install redis-server (Debian: apt-get install redis-server), or start a Docker ' +
        `engine for testcontainers (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
}

function hasRedisServer(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    probe.on('error', () => resolve(false));
    probe.on('exit', (code) => resolve(code === 0));
  });
}

function describeSource(redis: RedisHandle): string {
  switch (redis.source) {
    case 'env':
      return 'REDIS_URL';
    case 'redis-server':
      return 'a private redis-server';
    case 'testcontainers':
      return 'a testcontainers container (redis:7-alpine)';
  }
}

runCli(main, 'demo: ');
