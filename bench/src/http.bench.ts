/**
 * HTTP-level part of issue 7: autocannon against the payments endpoint with the coordinator on and off, with fresh
 * idempotency keys and with replays, reporting the latency the coordinator adds and the throughput ratio.
 *
 * This script starts nothing: it measures services that are already running, so the services are benchmarked as
 * they are deployed (their own process, their own Redis). Run, after `pnpm build`:
 *
 *   PAYMENTS_URL=http://127.0.0.1:PORT/payments \
 *   PAYMENTS_URL_OFF=http://127.0.0.1:PORT2/payments \
 *   node bench/dist/http.bench.js
 *
 * PAYMENTS_URL is the endpoint with the coordinator on; PAYMENTS_URL_OFF the same endpoint on an instance with
 * it off (without it, only the "on" rows are measured). Optional: PAYMENTS_BODY (the JSON body to POST),
 * HTTP_BENCH_SECONDS (default 10), HTTP_BENCH_CONNECTIONS (default 32), HTTP_BENCH_REPLAY_KEYS (default 500).
 * Only loopback URLs are accepted: this load must never leave the machine.
 *
 * TODO(issue 7): the payments service does not exist yet. Once it does, check the default body and the
 * `Idempotency-Key` header against its contract, add how to start it with the coordinator off, and record a run
 * in docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import autocannon from 'autocannon';

interface Scenario {
  readonly name: string;
  readonly url: string;
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
}

const DEFAULT_BODY = JSON.stringify({ orderId: 'ord_7Hq2mXv9Lr4Tz8Kc', amount: 4999, currency: 'EUR' });

async function main(): Promise<void> {
  const onUrl = loopbackUrl('PAYMENTS_URL', true);
  if (!onUrl) return;
  const offUrl = loopbackUrl('PAYMENTS_URL_OFF', false);
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
  ];

  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    console.error(`- ${scenario.name} (${seconds} s, ${connections} connections)`);
    results.push(await run(scenario, body, seconds, connections));
  }

  const off = results.find((result) => result.name.startsWith('coordinator off'));
  const comparisons = off
    ? results
        .filter((result) => result !== off)
        .map((result) => ({
          name: result.name,
          addedLatencyP50Ms: round(result.latencyMs.p50 - off.latencyMs.p50),
          addedLatencyP99Ms: round(result.latencyMs.p99 - off.latencyMs.p99),
          throughputRatio: round(result.requestsPerSecond / off.requestsPerSecond),
        }))
    : [];

  console.log('| scenario | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${r.latencyMs.p50} | ${r.latencyMs.p90} | ${r.latencyMs.p99} | ${r.non2xx} | ${r.errors} |`,
    );
  }
  for (const c of comparisons) {
    console.log(
      `${c.name}: ${signed(c.addedLatencyP50Ms)} ms p50, ${signed(c.addedLatencyP99Ms)} ms p99, throughput ${c.throughputRatio}x of off`,
    );
  }
  if (!off) console.log('PAYMENTS_URL_OFF not set: no added latency or throughput ratio.');

  const file = new URL('../results/http.json', import.meta.url);
  await mkdir(new URL('.', file), { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), seconds, connections, results, comparisons }, null, 2)}\n`,
  );
  console.error(`wrote ${file.pathname}`);
}

/** One POST per key, so the replay scenario only ever sends keys whose result is stored. */
async function primeReplayKeys(url: string, body: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => randomUUID());
  for (const key of keys) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
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
  const result = await autocannon({
    url: scenario.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
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
  };
}

/** Reads a URL from the environment and refuses anything but loopback: load must stay on this machine. */
function loopbackUrl(name: string, required: boolean): string | undefined {
  const raw = process.env[name];
  if (!raw) {
    if (required) {
      console.error(
        `${name} is not set: start the payments service, then run with ${name}=http://127.0.0.1:PORT/...`,
      );
      process.exitCode = 2;
    }
    return undefined;
  }
  const url = new URL(raw);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new Error(
      `${name} must point to this machine (127.0.0.1, localhost or [::1]), got ${url.hostname}`,
    );
  }
  return url.toString();
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function signed(value: number): string {
  return value >= 0 ? `+${value}` : String(value);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

await main();
