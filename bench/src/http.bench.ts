/**
 * `pnpm bench:http`: autocannon against the payments endpoint (`POST /v1/payments`) with the coordinator on and
 * off, with fresh idempotency keys and with replays, reporting the latency the coordinator adds and the throughput
 * ratio, measured in the same run.
 *
 * By default it starts what it measures, from the built tree (`pnpm build` first): a private redis-server,
 * provider-sim, and two payments processes, one with `IDEMPOTENCY_ENABLED=true` and one with `false`, each on a
 * free port. To measure services already running instead, set PAYMENTS_URL (coordinator on) and optionally
 * PAYMENTS_URL_OFF (off), e.g. `PAYMENTS_URL=http://127.0.0.1:3002/v1/payments`.
 *
 * Optional: PAYMENTS_BODY (the JSON body), HTTP_BENCH_SECONDS (default 10), HTTP_BENCH_CONNECTIONS (default 32),
 * HTTP_BENCH_REPLAY_KEYS (default 500), HTTP_BENCH_WARMUP_SECONDS (default 1, per design). Only loopback URLs are
 * accepted: this load must never leave the machine.
 * HTTP_BENCH_TRACING=1 (own stack only) adds a third payments, coordinator on, started with the telemetry hook and
 * exporting its spans to a local sink, and prints its throughput against the untraced coordinator-on process.
 * Writes bench/results/http.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { loopbackUrl, positiveInt } from './support/env.js';
import { INTERNAL_AUTHORIZATION, startOwnStack, type OwnStack } from './support/payments-stack.js';

interface Scenario {
  readonly name: string;
  readonly url: string;
  /** The serving process, when this script started it: its CPU time per answer is measured too. */
  readonly pid?: number | undefined;
  /** Returns the key for the next request. */
  readonly nextKey: () => string;
}

interface ScenarioResult {
  readonly name: string;
  readonly url: string;
  readonly requestsPerSecond: number;
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly mean: number;
  };
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** CPU ms the serving process spent per answer (user + system, from /proc): what load on the machine leaves be. */
  readonly cpuMsPerRequest?: number | undefined;
}

/** The internal payment command orders sends to payments. */
const DEFAULT_BODY = JSON.stringify({
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
  orderId: '0d6b1f4e-8c2a-4e7b-9f3d-5a1c7e2b8d40',
  amount: 4999,
  currency: 'EUR',
});

async function main(): Promise<void> {
  const tracing = process.env['HTTP_BENCH_TRACING'] === '1';
  const own = process.env['PAYMENTS_URL'] ? undefined : await startOwnStack({ tracing });
  try {
    await measure(own);
  } finally {
    await own?.close();
  }
}

async function measure(own: OwnStack | undefined): Promise<void> {
  const onUrl = own?.onUrl ?? loopbackUrl('PAYMENTS_URL', true);
  if (!onUrl) return;
  const offUrl = own?.offUrl ?? loopbackUrl('PAYMENTS_URL_OFF', false);
  const body = process.env['PAYMENTS_BODY'] ?? DEFAULT_BODY;
  JSON.parse(body); // fail early on a malformed PAYMENTS_BODY
  const seconds = positiveInt('HTTP_BENCH_SECONDS', 10);
  const connections = positiveInt('HTTP_BENCH_CONNECTIONS', 32);
  const replayKeys = await primeReplayKeys(onUrl, body, positiveInt('HTTP_BENCH_REPLAY_KEYS', 500));
  let replayIndex = 0;

  const scenarios: Scenario[] = [
    ...(offUrl ? [{ name: 'coordinator off, fresh keys', url: offUrl, nextKey: () => randomUUID() }] : []),
    { name: 'coordinator on, fresh keys', url: onUrl, nextKey: () => randomUUID() },
    {
      name: 'coordinator on, replays',
      url: onUrl,
      nextKey: () => replayKeys[replayIndex++ % replayKeys.length]!,
    },
    ...(own?.tracedUrl === undefined
      ? []
      : [{ name: 'coordinator on, fresh keys, traced', url: own.tracedUrl, nextKey: () => randomUUID() }]),
    ...(own?.sampledUrl === undefined
      ? []
      : [
          {
            name: 'coordinator on, fresh keys, traced 10 %',
            url: own.sampledUrl,
            nextKey: () => randomUUID(),
          },
        ]),
  ].map((scenario) => ({ ...scenario, pid: own?.pidOf(scenario.url) }));

  const results = await interleavedRounds(scenarios, body, seconds, connections);
  const comparisons = againstOff(results);
  printResults(results, comparisons);
  const exported = own?.sink?.receivedBytes() ?? 0;
  const tracingCost = ['traced', 'traced 10 %'].flatMap((design) => {
    const cost = tracedAgainstUntraced(results, design, exported);
    return cost === undefined ? [] : [{ design, ...cost }];
  });

  const file = new URL('../results/http.json', import.meta.url);
  await mkdir(new URL('.', file), { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), seconds, connections, results, comparisons, ...(tracingCost.length === 0 ? {} : { tracingCost }) }, null, 2)}\n`,
  );
  console.error(`wrote ${file.pathname}`);
}

/**
 * Rounds: off, on, replays, off, on, replays, ... so the designs see the same machine load; each figure is the
 * median over the rounds.
 */
async function interleavedRounds(
  scenarios: readonly Scenario[],
  body: string,
  seconds: number,
  connections: number,
): Promise<ScenarioResult[]> {
  const rounds = positiveInt('HTTP_BENCH_ROUNDS', 3);
  const perRound = Math.max(1, Math.round(seconds / rounds));
  // Warm-up, not measured: a process's CPU per answer keeps falling for seconds while the JIT compiles its paths.
  const warmUp = positiveInt('HTTP_BENCH_WARMUP_SECONDS', 1);
  for (const scenario of scenarios) await run(scenario, body, warmUp, connections);
  const samples = new Map<string, ScenarioResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      console.error(
        `- round ${round}/${rounds}: ${scenario.name} (${perRound} s, ${connections} connections)`,
      );
      const result = await run(scenario, body, perRound, connections);
      samples.set(scenario.name, [...(samples.get(scenario.name) ?? []), result]);
    }
  }
  return scenarios.map((scenario) => medianOf(samples.get(scenario.name) ?? []));
}

/** Each coordinator-on figure against coordinator off: added latency and the throughput ratio (none without off). */
function againstOff(results: readonly ScenarioResult[]) {
  const off = results.find((result) => result.name.startsWith('coordinator off'));
  return off
    ? results
        .filter((result) => result !== off)
        .map((result) => ({
          name: result.name,
          addedLatencyP50Ms: round(result.latencyMs.p50 - off.latencyMs.p50),
          addedLatencyP99Ms: round(result.latencyMs.p99 - off.latencyMs.p99),
          throughputRatio: round(result.requestsPerSecond / off.requestsPerSecond),
        }))
    : [];
}

/** A traced process against the untraced one (both coordinator on, fresh keys), printed; undefined untraced. */
function tracedAgainstUntraced(results: readonly ScenarioResult[], design: string, exportedBytes: number) {
  const traced = results.find((result) => result.name.endsWith(`, ${design}`));
  const untraced = results.find((result) => result.name === 'coordinator on, fresh keys');
  if (traced === undefined || untraced === undefined) return undefined;
  const cpu = (r: ScenarioResult) => r.cpuMsPerRequest ?? Number.NaN;
  const cost = {
    throughputRatio: round(traced.requestsPerSecond / untraced.requestsPerSecond),
    cpuMsPerRequest: { untraced: cpu(untraced), traced: cpu(traced) },
    cpuRatio: round(cpu(traced) / cpu(untraced)),
    addedLatencyP50Ms: round(traced.latencyMs.p50 - untraced.latencyMs.p50),
    addedLatencyP99Ms: round(traced.latencyMs.p99 - untraced.latencyMs.p99),
    exportedBytes,
  };
  console.log(
    `${design} (hook + OTLP exporter to a local sink, ${exportedBytes} bytes of spans received in all): throughput ${cost.throughputRatio}x of untraced, ${signed(cost.addedLatencyP50Ms)} ms p50, ${signed(cost.addedLatencyP99Ms)} ms p99; payments CPU ${cost.cpuMsPerRequest.traced} ms per answer against ${cost.cpuMsPerRequest.untraced} (${cost.cpuRatio}x: ${round(1 / cost.cpuRatio)}x the throughput of a saturated core)`,
  );
  return cost;
}

function printResults(results: readonly ScenarioResult[], comparisons: ReturnType<typeof againstOff>): void {
  console.log('| scenario | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors | CPU ms/answer |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${r.latencyMs.p50} | ${r.latencyMs.p90} | ${r.latencyMs.p99} | ${r.non2xx} | ${r.errors} | ${r.cpuMsPerRequest ?? '-'} |`,
    );
  }
  for (const c of comparisons) {
    console.log(
      `${c.name}: ${signed(c.addedLatencyP50Ms)} ms p50, ${signed(c.addedLatencyP99Ms)} ms p99, throughput ${c.throughputRatio}x of off`,
    );
  }
  if (comparisons.length === 0)
    console.log('PAYMENTS_URL_OFF not set: no added latency or throughput ratio.');
}

/** The median of each figure over the rounds (counts are summed). */
function medianOf(rounds: readonly ScenarioResult[]): ScenarioResult {
  const first = rounds[0];
  if (!first) throw new Error('no rounds measured');
  const median = (pick: (r: ScenarioResult) => number): number => {
    const sorted = rounds.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  const sum = (pick: (r: ScenarioResult) => number): number =>
    rounds.reduce((total, r) => total + pick(r), 0);
  return {
    name: first.name,
    url: first.url,
    requestsPerSecond: median((r) => r.requestsPerSecond),
    latencyMs: {
      p50: median((r) => r.latencyMs.p50),
      p90: median((r) => r.latencyMs.p90),
      p99: median((r) => r.latencyMs.p99),
      mean: median((r) => r.latencyMs.mean),
    },
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    cpuMsPerRequest: first.cpuMsPerRequest === undefined ? undefined : median((r) => r.cpuMsPerRequest ?? 0),
  };
}

/** User + system CPU ms of a process so far (Linux /proc; undefined elsewhere). */
async function cpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** One POST per key, so the replay scenario only ever sends keys whose result is stored. */
async function primeReplayKeys(url: string, body: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => randomUUID());
  for (const key of keys) {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: INTERNAL_AUTHORIZATION,
        'idempotency-key': key,
      },
      body,
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`priming a replay key: ${url} answered ${response.status}`);
  }
  return keys;
}

async function run(
  scenario: Scenario,
  body: string,
  seconds: number,
  connections: number,
): Promise<ScenarioResult> {
  const cpuBefore = await cpuMs(scenario.pid);
  const result = await autocannon({
    url: scenario.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', authorization: INTERNAL_AUTHORIZATION },
        // Runs for every request sent, so each one carries the scenario's next key.
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'idempotency-key': scenario.nextKey() },
        }),
      },
    ],
  });
  return {
    name: scenario.name,
    url: scenario.url,
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      mean: round(result.latency.average),
    },
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuMsPerRequest: await cpuPerRequest(scenario.pid, cpuBefore, result.requests.total),
  };
}

async function cpuPerRequest(
  pid: number | undefined,
  before: number | undefined,
  requests: number,
): Promise<number | undefined> {
  const after = await cpuMs(pid);
  return after === undefined || before === undefined || requests === 0
    ? undefined
    : round((after - before) / requests);
}

function signed(value: number): string {
  return value >= 0 ? `+${value}` : String(value);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

await main();
