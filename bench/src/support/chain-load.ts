/** One measured window of `pnpm bench:http`: autocannon on the gateway, and the CPU every process spent meanwhile. */
import autocannon from 'autocannon';
import { BENCH_TENANT, CHAIN_SERVICES, type Chain, type ChainService } from './chain-stack.js';
import { positiveInt } from './env.js';
import { median, round } from './stats.js';
import { cpuMsOf, treeCpuDelta, treeCpuMs } from './proc-cpu.js';

/** What a scenario sends: each request gets the next path, body and key. */
export interface ChainRequest {
  readonly path: string;
  readonly body: string;
  readonly key: string;
}

/** One row of the report: a kind of request on one chain. */
export interface ChainScenario {
  readonly name: string;
  readonly chain: Chain;
  readonly next: () => ChainRequest;
}

/** Where the shared stores' CPU is read (left out when unknown: a store this script did not start). */
export interface StoreCpu {
  readonly redisPid: number | undefined;
  readonly postgresPid: number | undefined;
}

/** What one window (or the median of several) measured. */
export interface ChainResult {
  readonly name: string;
  readonly chain: string;
  /** 2xx answers per second (the median over the rounds). */
  readonly opsPerSecond: number;
  /** 2xx answers per second of each round, in round order. */
  readonly perRound: readonly number[];
  /** The four services' CPU milliseconds per 2xx answer of each round, in round order. */
  readonly perRoundCpu: readonly number[];
  /** The relays' (gateway, orders, payments: {@link relayCpuOf}) CPU ms per 2xx answer of each round. */
  readonly perRoundRelayCpu: readonly number[];
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number };
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  /** CPU milliseconds per 2xx answer, by service, and of the stores (shared, but idle outside the window). */
  readonly cpuMsPerOp: Readonly<Record<ChainService, number>> & {
    readonly services: number;
    readonly redis: number | undefined;
    readonly postgres: number | undefined;
  };
}

/**
 * Gateway's, orders' and payments' CPU ms per answer: the chain's own services, without provider-sim (which stands
 * for an outside provider), what the floor chain's three relays are compared with.
 */
export function relayCpuOf(cpu: ChainResult['cpuMsPerOp']): number {
  return round(cpu.gateway + cpu.orders + cpu.payments, 3);
}

// A floor chain has no store: the shared stores' work in its windows (other chains' queues) is not its own.
const NO_STORES: StoreCpu = { redisPid: undefined, postgresPid: undefined };

const RATE = process.env['HTTP_BENCH_RATE'] ? positiveInt('HTTP_BENCH_RATE', 1) : undefined;

const HEADERS = {
  'content-type': 'application/json',
  authorization: `Bearer ${BENCH_TENANT.token}`,
} as const;

/** Every process' CPU time at one moment: the chain's services, Redis, PostgreSQL's processes (when known). */
interface CpuSnapshot {
  readonly services: Record<ChainService, number>;
  readonly redis: number | undefined;
  readonly postgres: ReadonlyMap<number, number> | undefined;
}

function cpuSnapshot(chain: Chain, stores: StoreCpu): CpuSnapshot {
  const services = Object.fromEntries(
    CHAIN_SERVICES.map((s) => [s, cpuMsOf(chain.pids[s]) ?? Number.NaN]),
  ) as Record<ChainService, number>;
  return {
    services,
    redis: stores.redisPid === undefined ? undefined : cpuMsOf(stores.redisPid),
    postgres: stores.postgresPid === undefined ? undefined : treeCpuMs(stores.postgresPid),
  };
}

/** The CPU milliseconds per 2xx answer between two snapshots, `ok` answers apart. */
function cpuPerAnswer(before: CpuSnapshot, after: CpuSnapshot, ok: number): ChainResult['cpuMsPerOp'] {
  const perOp = (ms: number) => round(ms / Math.max(1, ok), 3);
  const byService = Object.fromEntries(
    CHAIN_SERVICES.map((s) => [s, perOp(after.services[s] - before.services[s])]),
  ) as Record<ChainService, number>;
  return {
    ...byService,
    services: round(
      CHAIN_SERVICES.reduce((sum, s) => sum + byService[s], 0),
      3,
    ),
    redis:
      before.redis === undefined || after.redis === undefined ? undefined : perOp(after.redis - before.redis),
    postgres:
      before.postgres === undefined || after.postgres === undefined
        ? undefined
        : perOp(treeCpuDelta(before.postgres, after.postgres)),
  };
}

/**
 * Runs `scenario` for `seconds` at `connections`, reading every process' CPU time before and after. With
 * `HTTP_BENCH_RATE` (requests per second in all), the load is that rate instead of as fast as the chain answers:
 * every chain then answers the same number of requests in the same time, so their CPU per answer compares work
 * alone (a slower chain gets fewer requests per event-loop turn, and each costs it more).
 */
export async function runWindow(
  scenario: ChainScenario,
  seconds: number,
  connections: number,
  stores: StoreCpu,
): Promise<ChainResult> {
  const { chain } = scenario;
  const measured = chain.floor !== undefined ? NO_STORES : stores;
  const before = cpuSnapshot(chain, measured);
  const result = await autocannon({
    url: chain.gatewayUrl,
    connections,
    ...(RATE === undefined ? {} : { overallRate: RATE }),
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: HEADERS,
        // Runs for every request sent, so each one carries the scenario's next path, body and key.
        setupRequest: (request) => {
          const next = scenario.next();
          return {
            ...request,
            path: next.path,
            body: next.body,
            headers: { ...request.headers, 'idempotency-key': next.key },
          };
        },
      },
    ],
  });
  const after = cpuSnapshot(chain, measured);
  const ok = result['2xx'];
  const perAnswer = cpuPerAnswer(before, after, ok);
  const cpuMsPerOp = chain.floor !== undefined ? { ...perAnswer, redis: 0, postgres: 0 } : perAnswer;
  return {
    name: scenario.name,
    chain: chain.label,
    opsPerSecond: Math.round(ok / result.duration),
    perRound: [Math.round(ok / result.duration)],
    perRoundCpu: [cpuMsPerOp.services],
    perRoundRelayCpu: [relayCpuOf(cpuMsPerOp)],
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMsPerOp,
  };
}

/** The median of each figure over the rounds of one scenario (counts summed). */
export function medianOf(rounds: readonly ChainResult[]): ChainResult {
  const first = rounds[0];
  if (first === undefined) throw new Error('no rounds measured');
  const medianOfRounds = (pick: (r: ChainResult) => number | undefined): number =>
    median(rounds.map((r) => pick(r) ?? Number.NaN));
  const optional = (pick: (r: ChainResult) => number | undefined) =>
    rounds.some((r) => pick(r) === undefined) ? undefined : medianOfRounds(pick);
  const sum = (pick: (r: ChainResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const cpu = Object.fromEntries(
    CHAIN_SERVICES.map((s) => [s, medianOfRounds((r) => r.cpuMsPerOp[s])]),
  ) as Record<ChainService, number>;
  return {
    name: first.name,
    chain: first.chain,
    opsPerSecond: medianOfRounds((r) => r.opsPerSecond),
    perRound: rounds.map((r) => r.opsPerSecond),
    perRoundCpu: rounds.map((r) => r.cpuMsPerOp.services),
    perRoundRelayCpu: rounds.map((r) => relayCpuOf(r.cpuMsPerOp)),
    latencyMs: {
      p50: medianOfRounds((r) => r.latencyMs.p50),
      p90: medianOfRounds((r) => r.latencyMs.p90),
      p99: medianOfRounds((r) => r.latencyMs.p99),
    },
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    cpuMsPerOp: {
      ...cpu,
      services: medianOfRounds((r) => r.cpuMsPerOp.services),
      redis: optional((r) => r.cpuMsPerOp.redis),
      postgres: optional((r) => r.cpuMsPerOp.postgres),
    },
  };
}
