/**
 * `pnpm bench:peers`: our coordinator against the idempotency libraries a Node user would otherwise pick, on the
 * same private Redis, in one run, with the same action and payload. Prints one table and writes the same figures
 * to bench/results/peers.json.
 *
 * Environment (optional): BENCH_PEERS=retry-safe,powertools,... to run a subset; BENCH_SAMPLES (default 2000)
 * BENCH_THROUGHPUT_MS (default 1000, per window) and BENCH_THROUGHPUT_ROUNDS (default 3) for quick runs. The committed results come from the defaults.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { startPrivateRedisServer } from '@retry-safe/testing';
import { ExpressIdempotencyPeer } from './peers/express-idempotency.peer.js';
import { HandRolledPeer } from './peers/hand-rolled.peer.js';
import { NodeIdempotencyPeer } from './peers/node-idempotency.peer.js';
import type { Peer } from './peers/peer.js';
import { PowertoolsPeer } from './peers/powertools.peer.js';
import { RetrySafePeer } from './peers/retry-safe.peer.js';
import { measureAll } from './support/peer-measures.js';
import { PLAN, Role, type Library } from './support/peer-plan.js';
import { addRatios, evaluateGoals, METHOD, renderNotes, renderTable } from './support/peer-report.js';
import { RedisCommandCounter } from './support/redis-commands.js';
import { round } from './support/stats.js';
import { redisCpuReader } from './support/throughput.js';

/** A library whose stale-owner row uses the same instance settings as every other row. */
const library = (id: string, role: Role, create: () => Peer): Library => ({
  id,
  role,
  create,
  createForStaleOwner: create,
});

const LIBRARIES: readonly Library[] = [
  {
    id: 'retry-safe',
    role: Role.Ours,
    // Our defaults: the store sends the commands of one tick in one write by itself.
    recommended: true,
    create: () => new RetrySafePeer(),
    createForStaleOwner: () => new RetrySafePeer({ renewLease: false }),
  },
  {
    // ioredis' enableAutoPipelining, the setting issue reports suggested: shown for comparison, not recommended.
    id: 'retry-safe-autopipelining',
    role: Role.Ours,
    create: () => new RetrySafePeer({ autoPipelining: true }),
    createForStaleOwner: () => new RetrySafePeer({ renewLease: false, autoPipelining: true }),
  },
  library('powertools', Role.Peer, () => new PowertoolsPeer()),
  library('node-idempotency', Role.Peer, () => new NodeIdempotencyPeer()),
  library('express-idempotency', Role.Peer, () => new ExpressIdempotencyPeer()),
  library('hand-rolled', Role.Baseline, () => new HandRolledPeer()),
];

async function main(): Promise<void> {
  const selected = selectLibraries();
  const redis = await startPrivateRedisServer();
  const admin = redis.client();
  let counter: RedisCommandCounter | undefined;
  try {
    const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
    // The machine may be shared: the load average says how quiet it was.
    const loadAtStart = loadavg()[0] ?? Number.NaN;
    counter = await RedisCommandCounter.start(redis.client());
    console.error(
      `private redis-server ${redisVersion} at ${redis.url}; ${PLAN.samples} samples per latency phase`,
    );
    const results = await measureAll(
      selected,
      redis.url,
      counter,
      () => admin.flushall().then(() => undefined),
      await redisCpuReader(admin),
    );
    addRatios(results);
    const report = {
      generatedAt: new Date().toISOString(),
      command: 'pnpm build && pnpm bench:peers',
      environment: {
        node: process.version,
        redis: redisVersion,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        loadAverage1m: { start: round(loadAtStart, 2), end: round(loadavg()[0] ?? Number.NaN, 2) },
      },
      plan: PLAN,
      method: METHOD,
      goals: evaluateGoals(results),
      results,
    };
    console.log(renderTable(results));
    console.log();
    console.log(renderNotes(results, report.goals));
    const env = report.environment;
    console.log(
      `\nEnvironment: Node ${env.node}, Redis ${env.redis}, ${env.cpus} x ${env.cpuModel}, ` +
        `1-min load average ${env.loadAverage1m.start} at start, ${env.loadAverage1m.end} at end.`,
    );
    const file = new URL('../results/peers.json', import.meta.url);
    await mkdir(new URL('.', file), { recursive: true });
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.error(`wrote ${file.pathname}`);
  } finally {
    await counter?.close();
    await admin.quit();
    // The server process is unref'd and, with every client closed, nothing else keeps the event loop alive
    // while close() waits for its exit: without this timer Node would leave with the top-level await unsettled.
    const keepAlive = setInterval(() => {}, 1000);
    try {
      await redis.close();
    } finally {
      clearInterval(keepAlive);
    }
  }
}

function selectLibraries(): readonly Library[] {
  const wanted = process.env['BENCH_PEERS'];
  if (!wanted) return LIBRARIES;
  const ids = wanted.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !LIBRARIES.some((library) => library.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_PEERS: unknown ${unknown.join(', ')}; known: ${LIBRARIES.map((l) => l.id).join(', ')}`,
    );
  }
  return LIBRARIES.filter((library) => ids.includes(library.id));
}

await main();
