/**
 * The whole chain `pnpm bench:http` measures: provider-sim, payments, orders and the gateway as processes of a built
 * tree (this one, or a baseline checkout's), on a shared private Redis and PostgreSQL, each chain on its own key
 * prefix, queue prefix and database.
 */
import { join } from 'node:path';
import pg from 'pg';
import { TEST_INTERNAL_TOKEN, freePort, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';
import { chainNodeArgs } from './chain-node-args.js';
import { startFloorChain, type FloorDesign } from './floor-chain.js';

/** The one tenant of the benchmark and its bearer token at the gateway. */
export const BENCH_TENANT = {
  token: 'bench-token-tenant-0123456789',
  tenantId: 'a0000000-0000-4000-8000-00000000000a',
} as const;

/** The services of a chain, in the order they are started (and reported). */
export const CHAIN_SERVICES = ['gateway', 'orders', 'payments', 'provider-sim'] as const;
export type ChainService = (typeof CHAIN_SERVICES)[number];

/** What a chain is started with. */
export interface ChainOptions {
  /** Its label in the report, e.g. `main, coordinator on`. */
  readonly label: string;
  /** The repository root whose `apps/<app>/dist/main.js` run (ends with a separator or not). */
  readonly root: string;
  /** The processing records (payments' coordinator, orders' records): `IDEMPOTENCY_ENABLED` of both. */
  readonly coordinator: boolean;
  readonly redisUrl: string;
  /** A server URL; the chain gets a database of its own on it. */
  readonly postgresUrl: string;
  /** Options for node itself, for every service (e.g. `--max-semi-space-size=64`). @default none */
  readonly nodeArgs?: readonly string[];
  /** `--cpu-prof` every service into this directory (a subfolder per chain and service). */
  readonly cpuProfDir?: string | undefined;
  /**
   * Gateway, orders and payments started with the telemetry hook, exporting their spans to `sinkUrl` and starting
   * `ratio` of the traces (`TRACES_SAMPLE_RATIO`). Without it, no service loads the hook (untraced).
   */
  readonly tracing?: { readonly sinkUrl: string; readonly ratio: number } | undefined;
  /**
   * A floor instead of the services: four hops of the same shape, bare `node:http` ones or NestJS-on-Fastify ones,
   * with no store (`root`, `coordinator` and `tracing` are not used).
   */
  readonly floor?: FloorDesign | undefined;
}

/** A running chain. */
export interface Chain {
  readonly label: string;
  readonly coordinator: boolean;
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly gatewayUrl: string;
  /** The pid of each service (`/proc/<pid>` gives its CPU time). */
  readonly pids: Readonly<Record<ChainService, number>>;
  /** The chain's database name (its PostgreSQL backends are the ones serving it). */
  readonly database: string;
  /**
   * A floor chain's design: it has no store, so its Redis and PostgreSQL figures are 0 (the shared stores' work in
   * its windows is other chains').
   */
  readonly floor?: FloorDesign;
  close(): Promise<void>;
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

/** Starts a service of the chain `tag` on `port`, with `env` on top of the chain's; each one is added to `started`. */
type ServiceStarter = (
  service: ChainService,
  port: number,
  env: Record<string, string>,
) => Promise<ServiceProcess>;

function serviceStarter(options: ChainOptions, tag: string, started: ServiceProcess[]): ServiceStarter {
  const traced = options.tracing !== undefined;
  const tracingEnv: Record<string, string> =
    options.tracing === undefined
      ? {}
      : {
          OTEL_EXPORTER_OTLP_ENDPOINT: options.tracing.sinkUrl,
          TRACES_SAMPLE_RATIO: String(options.tracing.ratio),
        };
  return async (service, port, env) => {
    const app = service === 'provider-sim' ? 'provider-sim' : service;
    const proc = await startServiceProcess({
      name: `${tag}-${service}`,
      entry: join(options.root, 'apps', app, 'dist', 'main.js'),
      port,
      // provider-sim stands for the external provider: never traced.
      telemetry: traced && service !== 'provider-sim',
      env: { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...(service === 'provider-sim' ? {} : tracingEnv), ...env },
      nodeArgs: chainNodeArgs(options, tag, service),
      startTimeoutMs: 30_000,
    });
    started.push(proc);
    return proc;
  };
}

/** Starts one chain (provider-sim first, the gateway last), each service on a free port; a floor's, if `floor`. */
export async function startChain(options: ChainOptions, index: number): Promise<Chain> {
  if (options.floor !== undefined) return startFloorChain(options, index, options.floor);
  const tag = `bench-chain-${index}`;
  const database = `retry_safe_bench_${index}_${process.pid}`;
  const databaseUrl = await createDatabase(options.postgresUrl, database);
  const started: ServiceProcess[] = [];
  const start = serviceStarter(options, tag, started);
  try {
    const ports = { provider: await freePort(), payments: await freePort(), orders: await freePort() };
    const gatewayPorts = { api: await freePort(), metrics: await freePort() };
    const enabled = String(options.coordinator);
    const provider = await start('provider-sim', ports.provider, { PROVIDER_PORT: String(ports.provider) });
    const payments = await start('payments', ports.payments, {
      PAYMENTS_PORT: String(ports.payments),
      PROVIDER_URL: url(ports.provider),
      REDIS_URL: options.redisUrl,
      IDEMPOTENCY_ENABLED: enabled,
      IDEMPOTENCY_KEY_PREFIX: `${tag}:`,
    });
    const orders = await start('orders', ports.orders, {
      ORDERS_PORT: String(ports.orders),
      PAYMENTS_URL: url(ports.payments),
      REDIS_URL: options.redisUrl,
      DATABASE_URL: databaseUrl,
      BULLMQ_PREFIX: tag,
      // A baseline without this switch ignores it (its orders always keep their records).
      IDEMPOTENCY_ENABLED: enabled,
    });
    const gateway = await start('gateway', gatewayPorts.api, {
      GATEWAY_PORT: String(gatewayPorts.api),
      HOST: '127.0.0.1',
      METRICS_PORT: String(gatewayPorts.metrics),
      ORDERS_URL: url(ports.orders),
      API_TOKENS: `${BENCH_TENANT.token}=${BENCH_TENANT.tenantId}`,
    });
    const pidOf = (proc: ServiceProcess): number => {
      if (proc.pid === undefined) throw new Error(`${proc.name} has no pid`);
      return proc.pid;
    };
    return {
      label: options.label,
      coordinator: options.coordinator,
      gatewayUrl: gateway.url,
      pids: {
        gateway: pidOf(gateway),
        orders: pidOf(orders),
        payments: pidOf(payments),
        'provider-sim': pidOf(provider),
      },
      database,
      // Gateway first, so nothing calls a service that already stopped.
      close: async () => {
        for (const proc of [...started].reverse()) await proc.kill('SIGTERM');
      },
    };
  } catch (error) {
    await Promise.all(started.map((proc) => proc.kill('SIGKILL')));
    throw error;
  }
}

/** Creates `database` on the server of `serverUrl` and returns its URL. */
async function createDatabase(serverUrl: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
