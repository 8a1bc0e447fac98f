/**
 * `pnpm bench:http [--baseline <checkout>]`: the whole chain through the gateway (gateway -> orders -> payments ->
 * provider-sim), with autocannon at 32 connections: fresh payments, replays and order creation, with the processing
 * records on and off, and the CPU milliseconds every service spends per answer (from `/proc`: each thread's run
 * time), in one run.
 *
 * It starts what it measures from the built tree (`pnpm build` first): a private redis-server and PostgreSQL, then
 * one chain per design, each on its own ports, key prefix, queue prefix and database:
 * - **coordinator on**: the defaults (payments' coordinator in Redis, orders' records in its transactions);
 * - **coordinator off**: `IDEMPOTENCY_ENABLED=false` for payments and orders (orders' is a benchmark switch);
 * - with `--baseline <dir>` (or `HTTP_BENCH_BASELINE`): a built checkout of another commit (e.g. a worktree of main),
 *   coordinator on, under the same load, so its ratio to this tree is measured side by side.
 * Payments need an order: every chain gets `HTTP_BENCH_ORDERS` (default 200) orders before any window, and fresh
 * payments spread over them (a small amount each, so none is ever paid off). Replays cycle `HTTP_BENCH_REPLAY_KEYS`
 * (default 500) keys paid once before the windows.
 *
 * - with `HTTP_BENCH_TRACING=1`: this tree, coordinator on, with gateway, orders and payments traced (the telemetry
 *   hook, spans exported to a local sink), once with every trace recorded and once with one in ten
 *   (`TRACES_SAMPLE_RATIO=0.1`), against the untraced chain of the same run. The other chains load no hook.
 *
 * - with `HTTP_BENCH_FLOOR=1` (or `bare`): the floor, "bare node:http hops": four plain `node:http` processes of the
 *   same shape (support/bare-hop.ts: three relays named gateway, orders and payments, then a responder named
 *   provider-sim that answers 201 to everything), no framework, no logging, no store, under the same load; prints
 *   the three relays' CPU per fresh payment of this tree (and of the baseline) over the floor's.
 *   With `HTTP_BENCH_FLOOR=nest`, the framework floor instead, "Nest on Fastify hops": the same four hops as minimal
 *   NestJS apps on Fastify (support/nest-hop.ts: one controller, no logging, validation, interceptors or guards),
 *   with the same ratio over it ("/ Nest floor"); `HTTP_BENCH_FLOOR=bare,nest` starts both.
 *
 * - with `HTTP_BENCH_CONTROL=1`: the coordinator-on chain once more, a chain of its own, against the first (A/A
 *   pair: how far two identical chains measured in the same run differ, the noise every other ratio carries).
 *
 * Optional: HTTP_BENCH_SECONDS (per scenario, default 25, split over HTTP_BENCH_ROUNDS, default 5, interleaved),
 * HTTP_BENCH_WARMUP_SECONDS (per scenario, default 2: a process's CPU per answer falls for seconds while the JIT
 * warms up),
 * HTTP_BENCH_BASELINE_GOAL (the least fresh payments/s ratio to the baseline, default 1.5),
 * HTTP_BENCH_CONNECTIONS (default 32), HTTP_BENCH_RATE (requests per second in all: a fixed rate instead of as fast
 * as the chain answers, for CPU per answer at the same load), HTTP_BENCH_CPU_PROF=<dir> (every service runs with
 * `--cpu-prof` into it; `node bench/dist/profile-summary.js <dir>` prints the largest costs). Writes
 * bench/results/http.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgres, startPrivateRedisServer } from '@retry-safe/testing';
import { positiveInt } from './support/env.js';
import { baselineCheckout, repoRoot } from './support/repo-root.js';
import {
  medianOf,
  runWindow,
  type ChainResult,
  type ChainScenario,
  type StoreCpu,
} from './support/chain-load.js';
import { printReport, comparisonsOf } from './support/chain-report.js';
import { FLOORS, floorDesignsOf } from './support/floor-chain.js';
import { BENCH_TENANT, startChain, type Chain, type ChainOptions } from './support/chain-stack.js';
import { parentOf } from './support/proc-cpu.js';
import { startSpanSink } from './support/span-sink.js';

const ON_LABEL = 'this tree, coordinator on';
const AGAIN_LABEL = `${ON_LABEL}, again`;

const PAYMENT_BODY = JSON.stringify({ amount: 100, currency: 'EUR' });
const ORDER_BODY = JSON.stringify({ amount: 5000, currency: 'EUR' });
// Large enough that no order is paid off by the payments of one run (100 minor units each).
const PAYABLE_ORDER = { amount: 99_999_999, currency: 'EUR' };

/** A chain to start: what {@link startChain} takes besides the stores. */
type ChainDesign = Omit<ChainOptions, 'redisUrl' | 'postgresUrl' | 'cpuProfDir'>;

/**
 * The chains of this run: this tree with the coordinator on and off; the baseline checkout, if any; the floors
 * `HTTP_BENCH_FLOOR` names; this tree with
 * `HTTP_BENCH_NODE_ARGS`, if set; this tree traced into `sinkUrl` (every trace, then one in ten), if tracing; the
 * first again, with `HTTP_BENCH_CONTROL=1`.
 */
function designsOf(
  baseline: string | undefined,
  nodeArgs: readonly string[],
  sinkUrl?: string,
): ChainDesign[] {
  const traced = (ratio: number): ChainDesign => ({
    label: `${ON_LABEL}, traced${ratio < 1 ? ` ${Math.round(ratio * 100)} %` : ''}`,
    root: repoRoot(),
    coordinator: true,
    tracing: { sinkUrl: sinkUrl ?? '', ratio },
  });
  return [
    { label: ON_LABEL, root: repoRoot(), coordinator: true },
    { label: 'this tree, coordinator off', root: repoRoot(), coordinator: false },
    ...(baseline === undefined
      ? []
      : [{ label: 'baseline, coordinator on', root: baseline, coordinator: true }]),
    // HTTP_BENCH_FLOOR: the same hops with nothing in them, bare or on the services' framework: the least a chain of
    // this shape can cost.
    ...floorDesignsOf(process.env['HTTP_BENCH_FLOOR']).map((floor) => ({
      label: FLOORS[floor].label,
      root: repoRoot(),
      coordinator: false,
      floor,
    })),
    // HTTP_BENCH_NODE_ARGS: a third design of this tree with these node options, e.g. a GC setting to compare.
    ...(nodeArgs.length === 0
      ? []
      : [
          {
            label: `this tree, coordinator on, ${nodeArgs.join(' ')}`,
            root: repoRoot(),
            coordinator: true,
            nodeArgs,
          },
        ]),
    ...(sinkUrl === undefined ? [] : [traced(1), traced(0.1)]),
    // HTTP_BENCH_CONTROL=1: the first design again, as a chain of its own (an A/A pair: the run's noise).
    ...(process.env['HTTP_BENCH_CONTROL'] === '1'
      ? [{ label: AGAIN_LABEL, root: repoRoot(), coordinator: true }]
      : []),
  ];
}

/** Every chain's scenarios; with HTTP_BENCH_SCENARIOS=fresh,replays only those whose name starts with one of them. */
async function selectedScenarios(chains: readonly Chain[]): Promise<ChainScenario[]> {
  const only = (process.env['HTTP_BENCH_SCENARIOS'] ?? '').split(',').filter((name) => name !== '');
  const scenarios: ChainScenario[] = [];
  for (const chain of chains) scenarios.push(...(await scenariosOf(chain)));
  return only.length === 0 ? scenarios : scenarios.filter((s) => only.some((o) => s.name.startsWith(o)));
}

async function main(): Promise<void> {
  const baseline = baselineCheckout('HTTP_BENCH_BASELINE');
  const seconds = positiveInt('HTTP_BENCH_SECONDS', 25);
  const rounds = positiveInt('HTTP_BENCH_ROUNDS', 5);
  const connections = positiveInt('HTTP_BENCH_CONNECTIONS', 32);
  const cpuProfDir = process.env['HTTP_BENCH_CPU_PROF'] || undefined;
  const nodeArgs = (process.env['HTTP_BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
  const [redis, postgres] = await Promise.all([startPrivateRedisServer(), startPostgres()]);
  const chains: Chain[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const stores = await storePids(redis.url, postgres);
    const common = { redisUrl: redis.url, postgresUrl: postgres.url, cpuProfDir };
    const sink = process.env['HTTP_BENCH_TRACING'] === '1' ? await startSpanSink() : undefined;
    if (sink !== undefined) closers.push(() => sink.close());
    for (const [index, design] of designsOf(baseline, nodeArgs, sink?.url).entries()) {
      console.error(`- starting ${design.label} (${design.root})`);
      chains.push(await startChain({ ...design, ...common }, index));
    }
    const scenarios = await selectedScenarios(chains);
    const results = await interleavedRounds(scenarios, seconds, rounds, connections, stores);
    const comparisons = comparisonsOf(results, chains);
    printReport(results, comparisons, { connections, seconds, rounds, baseline });
    const file = new URL('../results/http.json', import.meta.url);
    await mkdir(new URL('.', file), { recursive: true });
    await writeFile(
      file,
      `${JSON.stringify({ generatedAt: new Date().toISOString(), seconds, rounds, connections, results, comparisons, ...(sink === undefined ? {} : { exportedSpanBytes: sink.receivedBytes() }) }, null, 2)}\n`,
    );
    console.error(`wrote ${file.pathname}`);
  } finally {
    for (const chain of chains) await chain.close();
    for (const close of closers) await close();
    await redis.close();
    await postgres.close();
  }
}

/** The pids whose CPU is the stores': redis-server's, and the postmaster's (its backends are its children). */
async function storePids(redisUrl: string, postgres: { url: string; source: string }): Promise<StoreCpu> {
  const admin = new Redis(redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  await admin.quit();
  let postgresPid: number | undefined;
  if (postgres.source !== 'env') {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    postgresPid = parentOf(rows[0]!.pid);
    await client.end();
  }
  return { redisPid: Number.isFinite(redisPid) ? redisPid : undefined, postgresPid };
}

/**
 * The rows of one chain: fresh payments and order creation everywhere; replays where the records are on, and on the
 * floor (where a replay is one more request through the hops: the least a replay can cost).
 */
async function scenariosOf(chain: Chain): Promise<ChainScenario[]> {
  console.error(`- ${chain.label}: creating orders and paying the replay keys (not measured)`);
  const orders = await createOrders(chain, positiveInt('HTTP_BENCH_ORDERS', 200));
  let next = 0;
  const fresh: ChainScenario = {
    name: 'fresh payments',
    chain,
    next: () => ({
      path: `/v1/orders/${orders[next++ % orders.length]!}/payments`,
      body: PAYMENT_BODY,
      key: randomUUID(),
    }),
  };
  const create: ChainScenario = {
    name: 'order creation',
    chain,
    next: () => ({ path: '/v1/orders', body: ORDER_BODY, key: randomUUID() }),
  };
  if (!chain.coordinator && chain.floor === undefined) return [fresh, create];
  const replays = await payOnce(chain, orders, positiveInt('HTTP_BENCH_REPLAY_KEYS', 500));
  let replay = 0;
  return [
    fresh,
    {
      name: 'replays',
      chain,
      next: () => replays[replay++ % replays.length]!,
    },
    create,
  ];
}

async function post(chain: Chain, path: string, body: string, key: string): Promise<unknown> {
  const response = await fetch(`${chain.gatewayUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${BENCH_TENANT.token}`,
      'idempotency-key': key,
    },
    body,
  });
  const text = await response.text();
  if (response.status !== 201)
    throw new Error(`${chain.label}: POST ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** `count` orders, 8 requests at a time. */
async function createOrders(chain: Chain, count: number): Promise<string[]> {
  const ids: string[] = [];
  const body = JSON.stringify(PAYABLE_ORDER);
  await inParallel(count, 8, async () => {
    const order = (await post(chain, '/v1/orders', body, randomUUID())) as { id: string };
    ids.push(order.id);
  });
  return ids;
}

/** Pays `count` keys once each, so every request of the replay window finds a stored Charge. */
async function payOnce(chain: Chain, orders: readonly string[], count: number) {
  const paid: { path: string; body: string; key: string }[] = [];
  await inParallel(count, 8, async (i) => {
    const request = {
      path: `/v1/orders/${orders[i % orders.length]!}/payments`,
      body: PAYMENT_BODY,
      key: randomUUID(),
    };
    await post(chain, request.path, request.body, request.key);
    paid.push(request);
  });
  return paid;
}

async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

/**
 * Rounds: every scenario once per round, so the designs see the same machine load, each round starting one
 * scenario later than the one before (a scenario's place in the round is not the same in every round: what runs
 * right after another chain's window pays for its garbage and its database's background work); each figure is the
 * median over the rounds. A short warm-up window per scenario first (JIT, pools), not measured.
 */
async function interleavedRounds(
  scenarios: readonly ChainScenario[],
  seconds: number,
  rounds: number,
  connections: number,
  stores: StoreCpu,
): Promise<ChainResult[]> {
  const perRound = Math.max(1, Math.round(seconds / rounds));
  const warmUp = positiveInt('HTTP_BENCH_WARMUP_SECONDS', 2);
  for (const scenario of scenarios) await runWindow(scenario, warmUp, connections, stores);
  const samples = new Map<ChainScenario, ChainResult[]>();
  for (let round = 1; round <= rounds; round++) {
    const offset = (round - 1) % scenarios.length;
    for (const scenario of [...scenarios.slice(offset), ...scenarios.slice(0, offset)]) {
      console.error(`- round ${round}/${rounds}: ${scenario.chain.label}, ${scenario.name} (${perRound} s)`);
      const result = await runWindow(scenario, perRound, connections, stores);
      samples.set(scenario, [...(samples.get(scenario) ?? []), result]);
    }
  }
  return scenarios.map((scenario) => medianOf(samples.get(scenario) ?? []));
}

await main();
