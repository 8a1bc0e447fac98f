/**
 * `pnpm bench:tracing [--baseline <checkout>]`: what tracing costs one service, measured where nothing else moves.
 * The chain of `pnpm bench:http` puts four services, two stores and the load on two cores, and two identical
 * chains measured in one run differ by up to a quarter there (its A/A pair), more than the 10 % this is about.
 *
 * Here one gateway process per variant runs on a core of its own (`taskset`, where the machine has two cores and
 * the command), and the load (autocannon), the stand-in for orders (a stub that answers 201 at once) and the span
 * sink share the other; every variant answers the same payment request in interleaved rounds:
 * - **untraced**: no telemetry hook (`node dist/main.js`);
 * - **hook, no endpoint**: the hook, nothing recorded (the cost of every request once the hook is loaded);
 * - **traced**: the hook and `OTEL_EXPORTER_OTLP_ENDPOINT` (every trace recorded and exported, OTLP/HTTP JSON);
 * - **traced 10 %**: the same with `TRACES_SAMPLE_RATIO=0.1`;
 * - with `--baseline <dir>` (or `TRACING_BENCH_BASELINE`): that built checkout's untraced and traced gateway too.
 *
 * Each round gives every variant two windows: as fast as it answers (requests per second of a process on its own
 * core: throughput), then `TRACING_BENCH_RATE` requests per second (default 400: CPU ms per request at one load,
 * from /proc). The report gives the medians and each variant's ratio to the untraced gateway of its tree, as the
 * ratio of the medians and (in brackets) the median and range of the ratio taken round by round.
 *
 * Optional: TRACING_BENCH_ROUNDS (default 6; the first is a warm-up and not counted), TRACING_BENCH_SECONDS (per
 * window, default 5), TRACING_BENCH_CONNECTIONS (default 16). Writes bench/results/tracing.json.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { TEST_INTERNAL_TOKEN, freePort, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';
import { BENCH_TENANT } from './support/chain-stack.js';
import { positiveInt } from './support/env.js';
import { cpuMsOf } from './support/proc-cpu.js';
import { baselineCheckout, repoRoot } from './support/repo-root.js';
import { startSpanSink } from './support/span-sink.js';
import { median } from './support/stats.js';

/** One gateway to measure: its label, its tree, and the telemetry it runs with. */
interface Variant {
  readonly label: string;
  readonly root: string;
  /** The untraced variant of the same tree, which its ratios are taken against. */
  readonly untraced: string;
  /** undefined: no hook; otherwise the hook, with these variables on top. */
  readonly telemetry?: Record<string, string>;
}

/** What one window of one variant measured. */
interface Window {
  readonly requestsPerSecond: number;
  readonly cpuMsPerRequest: number;
  readonly failures: number;
}

const ORDER_ID = '0a000000-0000-4000-8000-000000000001';
// What orders answers a payment with, as the stub's constant body.
const CHARGE = JSON.stringify({
  id: 'ch_0123456789abcdef',
  orderId: ORDER_ID,
  amount: 100,
  currency: 'EUR',
  status: 'succeeded',
  providerChargeId: 'pc_0123456789abcdef',
  createdAt: '2026-12-01T00:00:00.000Z',
});

function variantsOf(root: string, baseline: string | undefined, sinkUrl: string): Variant[] {
  const exported = (ratio: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, TRACES_SAMPLE_RATIO: ratio });
  const tree = [
    { label: 'untraced', root, untraced: 'untraced' },
    { label: 'hook, no endpoint', root, untraced: 'untraced', telemetry: {} },
    { label: 'traced', root, untraced: 'untraced', telemetry: exported('1') },
    { label: 'traced 10 %', root, untraced: 'untraced', telemetry: exported('0.1') },
  ];
  if (baseline === undefined) return tree;
  return [
    ...tree,
    { label: 'baseline, untraced', root: baseline, untraced: 'baseline, untraced' },
    {
      label: 'baseline, traced',
      root: baseline,
      untraced: 'baseline, untraced',
      telemetry: exported('1'),
    },
  ];
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startGateway(variant: Variant, ordersUrl: string): Promise<ServiceProcess> {
  const port = await freePort();
  return startServiceProcess({
    name: `tracing-bench ${variant.label}`,
    entry: resolve(variant.root, 'apps', 'gateway', 'dist', 'main.js'),
    port,
    telemetry: variant.telemetry !== undefined,
    env: {
      INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
      GATEWAY_PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      ORDERS_URL: ordersUrl,
      API_TOKENS: `${BENCH_TENANT.token}=${BENCH_TENANT.tenantId}`,
      LOG_LEVEL: 'info',
      ...variant.telemetry,
    },
  });
}

/** Pins `pid` (every thread) to `cpu`; false where it cannot (no taskset). */
function pin(pid: number, cpu: number): boolean {
  try {
    execFileSync('taskset', ['-apc', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function measure(gateway: ServiceProcess, seconds: number, connections: number, rate?: number) {
  const pid = gateway.pid!;
  const before = cpuMsOf(pid)!;
  const result = await autocannon({
    url: gateway.url,
    connections,
    duration: seconds,
    ...(rate === undefined ? {} : { overallRate: rate }),
    requests: [
      {
        method: 'POST',
        path: `/v1/orders/${ORDER_ID}/payments`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TENANT.token}` },
        body: JSON.stringify({ amount: 100, currency: 'EUR' }),
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'idempotency-key': randomUUID() },
        }),
      },
    ],
  });
  const answered = result['2xx'];
  return {
    requestsPerSecond: answered / seconds,
    cpuMsPerRequest: (cpuMsOf(pid)! - before) / Math.max(1, answered),
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

const fixed = (value: number, digits: number): string => value.toFixed(digits);

/**
 * `1.23x (1.20x, 1.10-1.31)`: `metric` of `rows` against `base` as the ratio of their medians, then (in brackets)
 * the median and range of the ratio taken round by round (row i against base i, measured in the same round).
 */
function ratio(rows: readonly Window[], base: readonly Window[], metric: keyof Window): string {
  const byRound = rows.map((row, i) => row[metric] / base[i]![metric]).sort((a, b) => a - b);
  const ofMedians = median(rows.map((row) => row[metric])) / median(base.map((row) => row[metric]));
  return `${fixed(ofMedians, 2)}x (${fixed(median(byRound), 2)}x, ${fixed(byRound[0]!, 2)}-${fixed(byRound.at(-1)!, 2)})`;
}

function report(
  variants: readonly Variant[],
  full: Map<string, Window[]>,
  paced: Map<string, Window[]>,
): void {
  console.log(
    '| gateway | requests/s | / untraced | CPU ms per request at a fixed rate | / untraced | failed |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const variant of variants) {
    const rows = full.get(variant.label)!;
    const at = paced.get(variant.label)!;
    const failed = [...rows, ...at].reduce((sum, row) => sum + row.failures, 0);
    console.log(
      `| ${variant.label} | ${fixed(median(rows.map((row) => row.requestsPerSecond)), 0)} | ` +
        `${ratio(rows, full.get(variant.untraced)!, 'requestsPerSecond')} | ` +
        `${fixed(median(at.map((row) => row.cpuMsPerRequest)), 3)} | ` +
        `${ratio(at, paced.get(variant.untraced)!, 'cpuMsPerRequest')} | ${failed} |`,
    );
  }
}

async function main(): Promise<void> {
  const rounds = positiveInt('TRACING_BENCH_ROUNDS', 6);
  if (rounds < 2) throw new Error('TRACING_BENCH_ROUNDS must be at least 2: the first round is a warm-up');
  const seconds = positiveInt('TRACING_BENCH_SECONDS', 5);
  const connections = positiveInt('TRACING_BENCH_CONNECTIONS', 16);
  const rate = positiveInt('TRACING_BENCH_RATE', 400);
  const orders = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(CHARGE));
  });
  const sink = await startSpanSink();
  const gateways: ServiceProcess[] = [];
  try {
    const ordersUrl = await listen(orders);
    const variants = variantsOf(repoRoot(), baselineCheckout('TRACING_BENCH_BASELINE'), sink.url);
    for (const variant of variants) gateways.push(await startGateway(variant, ordersUrl));
    // Counted before pinning: this process's own affinity is what availableParallelism() reports.
    const pinned =
      availableParallelism() >= 2 && gateways.every((gateway) => pin(gateway.pid!, 1)) && pin(process.pid, 0);
    console.log(
      `tracing cost of one gateway: ${variants.length} variants, ${rounds} rounds (the first a warm-up) of ` +
        `${seconds} s as fast as it answers and ${seconds} s at ${rate}/s, ${connections} connections; ` +
        (pinned ? 'gateways on CPU 1, load, stub and sink on CPU 0' : 'not pinned (one core or no taskset)'),
    );
    const full = new Map<string, Window[]>(variants.map((variant) => [variant.label, []]));
    const paced = new Map<string, Window[]>(variants.map((variant) => [variant.label, []]));
    for (let round = 0; round < rounds; round++) {
      // Each round starts one variant later, so no variant always follows the same one.
      const order = variants.map((_, i) => (i + round) % variants.length);
      for (const index of order) {
        const variant = variants[index]!;
        console.log(`- round ${round + 1}/${rounds}: ${variant.label}`);
        const windows = [
          await measure(gateways[index]!, seconds, connections),
          await measure(gateways[index]!, seconds, connections, rate),
        ];
        if (round === 0) continue;
        full.get(variant.label)!.push(windows[0]!);
        paced.get(variant.label)!.push(windows[1]!);
      }
    }
    report(variants, full, paced);
    const results = { pinned, rounds, seconds, rate, connections, full: [...full], paced: [...paced] };
    await mkdir(resolve(repoRoot(), 'bench', 'results'), { recursive: true });
    await writeFile(
      resolve(repoRoot(), 'bench', 'results', 'tracing.json'),
      JSON.stringify(results, null, 2),
    );
    console.log('wrote bench/results/tracing.json');
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.kill('SIGTERM')));
    await sink.close();
    orders.close();
  }
}

await main();
