/**
 * `pnpm bench` (third part): what `@Idempotent()` costs a Nest route, on Express and on Fastify, in one run.
 *
 * One in-process Nest app per platform, two routes doing the same trivial work, one of them behind
 * `@Idempotent()` (records in Redis under a fresh key prefix, deleted at the end), driven over loopback HTTP by one
 * keep-alive connection per app. Each row interleaves three calls: a Redis PING on the store's client, the plain
 * route, the decorated route; `fresh` sends a new key per request, `replay` one key, stored before the row. A row
 * gives p50 latencies, the decorated/plain ratio, the decorator's added p50 in PINGs, and the CPU time of this
 * process per request (client and app: the client's share is the same for both routes). A row that fails (a
 * wrong status, a replay not marked replayed, no answer within 5 s) is reported as an error row; the others run.
 * Writes bench/results/decorator.json.
 *
 * Environment (optional): REDIS_URL (loopback only; default redis://127.0.0.1:6379), BENCH_DECORATOR_SAMPLES
 * (default 2000 per route and row, after a warm-up of a quarter as many), BENCH_DECORATOR_ROW_SECONDS (a row is
 * given up after this long, default 60).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { Platform, Route, startBenchApp, type BenchApp } from './support/decorator-app.js';
import { loopbackUrl, positiveInt } from './support/env.js';
import { measureInterleavedWithCpu, round, type LatencyAndCpu } from './support/stats.js';

const SAMPLES = positiveInt('BENCH_DECORATOR_SAMPLES', 2_000);
const WARM_UP = Math.ceil(SAMPLES / 4);
const ROW_MS = positiveInt('BENCH_DECORATOR_ROW_SECONDS', 60) * 1_000;
const REQUEST_TIMEOUT_MS = 5_000;
const BODY = JSON.stringify({ amount: 4999, currency: 'EUR' });
const REPLAYED = 'idempotent-replayed';

const Case = { Fresh: 'fresh', Replay: 'replay' } as const;
type Case = (typeof Case)[keyof typeof Case];

interface Row {
  readonly platform: Platform;
  readonly case: Case;
  readonly ping?: LatencyAndCpu;
  readonly plain?: LatencyAndCpu;
  readonly decorated?: LatencyAndCpu;
  readonly decoratedToPlain?: number;
  readonly addedInPings?: number;
  readonly cpuDecoratedToPlain?: number;
  readonly error?: string;
}

/** A POST client of one app: one keep-alive connection; each answer is checked, and refused past the row's time. */
class Client {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private deadline = Number.POSITIVE_INFINITY;

  constructor(readonly app: BenchApp) {}

  startRow(): void {
    this.deadline = performance.now() + ROW_MS;
  }

  /** POSTs the body to `route` with `key`; resolves once the answer is 201, replayed or not as `replayed` says. */
  post(route: Route, key: string, replayed: boolean): Promise<void> {
    if (performance.now() > this.deadline) throw new Error(`the row took longer than ${ROW_MS / 1000} s`);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.app.url}${route}`,
        {
          method: 'POST',
          agent: this.agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('error', reject);
          res.on('end', () => {
            if (res.statusCode === 201 && (res.headers[REPLAYED] === 'true') === replayed) return resolve();
            const marked =
              res.headers[REPLAYED] === undefined ? '' : `, ${REPLAYED}: ${res.headers[REPLAYED]}`;
            reject(
              new Error(`${route} ${replayed ? 'replay ' : ''}answered ${res.statusCode}${marked}: ${text}`),
            );
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${route}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(BODY);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One row: warm-up, then PING, plain and decorated interleaved; an error row instead of a failure. */
async function measureRow(client: Client, redis: Redis, kind: Case): Promise<Row> {
  const { platform } = client.app;
  const replayKey = `${platform}-replay`;
  const keyOf = (phase: string, i: number) => (kind === Case.Fresh ? `${platform}-${phase}-${i}` : replayKey);
  const calls = (phase: string) => [
    () => redis.ping(),
    (i: number) => client.post(Route.Plain, keyOf(phase, i), false),
    (i: number) => client.post(Route.Decorated, keyOf(phase, i), kind === Case.Replay),
  ];
  try {
    client.startRow();
    if (kind === Case.Replay) await client.post(Route.Decorated, replayKey, false);
    await measureInterleavedWithCpu(WARM_UP, calls('warm'));
    const [ping, plain, decorated] = (await measureInterleavedWithCpu(SAMPLES, calls('run'))) as [
      LatencyAndCpu,
      LatencyAndCpu,
      LatencyAndCpu,
    ];
    const p50 = (m: LatencyAndCpu) => m.latency.p50;
    return {
      platform,
      case: kind,
      ping,
      plain,
      decorated,
      decoratedToPlain: round(p50(decorated) / p50(plain), 2),
      addedInPings: round((p50(decorated) - p50(plain)) / p50(ping), 2),
      cpuDecoratedToPlain: round(decorated.cpuUsPerCall / plain.cpuUsPerCall, 2),
    };
  } catch (error) {
    return { platform, case: kind, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Both rows of one platform; error rows when its app does not start. */
async function measurePlatform(platform: Platform, redis: Redis, keyPrefix: string): Promise<Row[]> {
  let app: BenchApp;
  try {
    app = await startBenchApp(platform, redis, `${keyPrefix}${platform}:`);
  } catch (error) {
    const message = `the app did not start: ${error instanceof Error ? error.message : String(error)}`;
    return Object.values(Case).map((kind) => ({ platform, case: kind, error: message }));
  }
  const client = new Client(app);
  try {
    const rows: Row[] = [];
    for (const kind of Object.values(Case)) rows.push(await measureRow(client, redis, kind));
    return rows;
  } finally {
    client.close();
    await app.close();
  }
}

/** Deletes every key under `prefix`: the records of this run. */
async function deleteRecords(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (keys.length > 0) deleted += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}

const ms = (m: LatencyAndCpu | undefined) => (m === undefined ? '' : m.latency.p50.toFixed(3));
const us = (m: LatencyAndCpu | undefined) => (m === undefined ? '' : m.cpuUsPerCall.toFixed(0));
const ratio = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}x`);

function printTable(rows: readonly Row[], header: string): void {
  console.log(`${header}\n`);
  console.log(
    '| platform | case | PING p50 ms | plain p50 ms | decorated p50 ms | decorated / plain | (decorated - plain) / PING | plain CPU µs | decorated CPU µs | CPU decorated / plain |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const cells =
      r.error === undefined
        ? [ms(r.ping), ms(r.plain), ms(r.decorated), ratio(r.decoratedToPlain), ratio(r.addedInPings)]
        : [`**error**: ${r.error.replaceAll('|', '\\|').replaceAll('\n', ' ')}`, '', '', '', ''];
    cells.push(us(r.plain), us(r.decorated), ratio(r.cpuDecoratedToPlain));
    console.log(`| ${[r.platform, r.case, ...cells].join(' | ')} |`);
  }
}

async function main(): Promise<void> {
  const redisUrl = loopbackUrl('REDIS_URL', false) ?? 'redis://127.0.0.1:6379';
  const keyPrefix = `bench:decorator:${randomUUID()}:`;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const rows: Row[] = [];
  try {
    for (const platform of Object.values(Platform))
      rows.push(...(await measurePlatform(platform, redis, keyPrefix)));
  } finally {
    const deleted = await deleteRecords(redis, keyPrefix);
    console.error(`deleted ${deleted} records under ${keyPrefix}`);
    await redis.quit();
  }
  const nest = (createRequire(import.meta.url)('@nestjs/core/package.json') as { version: string }).version;
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  printTable(
    rows,
    `retry-safe @Idempotent() decorator benchmark (${SAMPLES} samples per route and row, interleaved with a Redis PING; Nest ${nest}, Node ${process.version}, load ${load})`,
  );
  const file = new URL('../results/decorator.json', import.meta.url);
  await mkdir(new URL('.', file), { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), samples: SAMPLES, nest, node: process.version, rows }, null, 2)}\n`,
  );
  console.log('\nwritten to bench/results/decorator.json');
}

await main();
