/**
 * The whole system for a scenario: a private Redis the test controls, and provider-sim, payments, orders and the
 * gateway (and, on request, the invoice worker) as child processes started from their built `dist`, each on a free
 * port, with fault injection on and the two demo tenants. Build first (`pnpm build`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  startRedis,
  startServiceProcess,
  type RedisHandle,
  type ServiceProcess,
  type StartRedisOptions,
} from '@retry-safe/testing';
import { Redis } from 'ioredis';
import { DEMO_API_TOKENS } from '../demo-tenants.js';
import type { FaultRule, FaultSnapshot } from '../engine/target.js';
import { repoRoot } from '../repo-root.js';

/** The services a stack can run. */
export type ServiceName = 'provider' | 'payments' | 'orders' | 'gateway' | 'worker';

/** Environment variables of one service, added to (and overriding) what the stack sets. */
export type ServiceEnv = Record<string, string>;

/** Options of {@link startStack}: per-service env overrides, e.g. `{ payments: { IDEMPOTENCY_IN_FLIGHT: 'run' } }`. */
export interface StackOptions {
  provider?: ServiceEnv;
  payments?: ServiceEnv;
  orders?: ServiceEnv;
  gateway?: ServiceEnv;
  /** Start the invoice worker too, with these overrides (`true`: no overrides). @default false */
  worker?: ServiceEnv | boolean;
  /** Payments processes behind orders (round robin through `PAYMENTS_URL`). @default 1 */
  paymentsReplicas?: number;
  /** How the private Redis runs (`appendOnly` to survive restarts). Always controllable. */
  redis?: Omit<StartRedisOptions, 'controllable'>;
  /**
   * Use the Redis at this URL instead of starting a private one (then `stack.redis.control` is absent and `redis` is
   * ignored). The demo passes a gate it can close, in front of whatever Redis it found.
   */
  redisUrl?: string;
  /** Print every service's output, prefixed. @default process.env.E2E_LOGS === '1' */
  logs?: boolean;
}

/** A row of provider-sim's `GET /v1/charges`. */
export interface ProviderCharge {
  id: string;
  idempotencyKey: string;
  amount: number;
  currency: string;
  createdAt: string;
}

/** A running stack. */
export interface Stack {
  readonly redis: RedisHandle;
  /** Base URL of each running service (for payments: the first replica). */
  readonly urls: Readonly<Record<Exclude<ServiceName, 'worker'>, string>> & { readonly worker?: string };
  /** The processes of a service (payments may have several), to kill or restart them. */
  processes(service: ServiceName): readonly ServiceProcess[];
  /**
   * Stops a service (every replica) and starts it again on the same port with `env` on top of the settings it was
   * first started with (those of an earlier restart are dropped): a cheap way to compare designs on one stack.
   * A no-op for a process already running with exactly those settings.
   */
  restart(service: ServiceName, env?: ServiceEnv): Promise<void>;
  /** Replaces the fault rules of a service (every replica of payments). */
  setFaults(service: ServiceName, rules: readonly FaultRule[]): Promise<void>;
  /** The fault snapshot of a service (the first process of it). */
  faults(service: ServiceName, replica?: number): Promise<FaultSnapshot>;
  /** Requests per route template that reached a service, summed over its replicas. */
  faultCounts(service: ServiceName): Promise<Record<string, number>>;
  /** provider-sim's charge ledger. */
  providerCharges(): Promise<{ calls: number; charges: ProviderCharge[] }>;
  /** Keys in the stack's Redis that start with `prefix` (SCAN, never KEYS). */
  redisKeys(prefix: string): Promise<string[]>;
  /** Clears every service's fault rules and counters and provider-sim's ledgers: call between tests. */
  reset(): Promise<void>;
  /** Stops every process and Redis. */
  close(): Promise<void>;
}

const ENTRIES: Record<ServiceName, string> = {
  provider: entry('provider-sim'),
  payments: entry('payments'),
  orders: entry('orders'),
  gateway: entry('gateway'),
  worker: entry('invoice-worker'),
};

function entry(app: string): string {
  return join(repoRoot(), 'apps', app, 'dist', 'main.js');
}

/**
 * Starts Redis and the services (in parallel: none needs another to boot) and waits until each answers
 * `GET /health`. If one fails to start, everything started is stopped and the error is thrown.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const names: ServiceName[] = ['provider', 'payments', 'orders', 'gateway'];
  if (options.worker) names.push('worker');
  for (const name of names) {
    if (!existsSync(ENTRIES[name])) throw new Error(`${ENTRIES[name]} is missing: run \`pnpm build\` first`);
  }

  const redis =
    options.redisUrl === undefined
      ? await startRedis({ ...options.redis, controllable: true })
      : externalRedis(options.redisUrl);
  const processes = new Map<ServiceName, ServiceProcess[]>();
  let client: Redis | undefined;

  const close = async (): Promise<void> => {
    const all = [...processes.values()].flat();
    await Promise.all(all.map(stop));
    client?.disconnect();
    await redis.close();
  };

  try {
    const replicas = Math.max(1, options.paymentsReplicas ?? 1);
    const ports = {
      provider: await freePort(),
      payments: await Promise.all(Array.from({ length: replicas }, () => freePort())),
      orders: await freePort(),
      gateway: await freePort(),
      worker: await freePort(),
    };
    const url = (port: number): string => `http://127.0.0.1:${port}`;
    const common: ServiceEnv = { FAULTS_ENABLED: 'true', REDIS_URL: redis.url };
    const workerEnv = typeof options.worker === 'object' ? options.worker : {};
    const launch = (name: ServiceName, port: number, env: ServiceEnv, label: string = name) =>
      startServiceProcess({
        name: label,
        entry: ENTRIES[name],
        port,
        env: { ...common, ...env },
        ...(options.logs === undefined ? {} : { logs: options.logs }),
      });

    // What each process was started with, so restart() can bring it back on the same port with other settings.
    const specs: Array<{ name: ServiceName; label: string; port: number; env: ServiceEnv }> = [
      {
        name: 'provider',
        label: 'provider',
        port: ports.provider,
        env: { PROVIDER_PORT: String(ports.provider), ...options.provider },
      },
      ...ports.payments.map((port, index) => ({
        name: 'payments' as const,
        label: replicas > 1 ? `payments-${index + 1}` : 'payments',
        port,
        env: { PAYMENTS_PORT: String(port), PROVIDER_URL: url(ports.provider), ...options.payments },
      })),
      {
        name: 'orders',
        label: 'orders',
        port: ports.orders,
        env: {
          ORDERS_PORT: String(ports.orders),
          PAYMENTS_URL: ports.payments.map(url).join(','),
          ...options.orders,
        },
      },
      {
        name: 'gateway',
        label: 'gateway',
        port: ports.gateway,
        env: {
          GATEWAY_PORT: String(ports.gateway),
          ORDERS_URL: url(ports.orders),
          API_TOKENS: DEMO_API_TOKENS,
          ...options.gateway,
        },
      },
    ];
    if (options.worker) {
      specs.push({
        name: 'worker',
        label: 'worker',
        port: ports.worker,
        env: { WORKER_PORT: String(ports.worker), MAIL_PROVIDER_URL: url(ports.provider), ...workerEnv },
      });
    }
    const slots = specs.map((spec) => ({
      spec,
      env: spec.env,
      process: undefined as ServiceProcess | undefined,
    }));
    const syncProcesses = (): void => {
      processes.clear();
      for (const slot of slots) {
        if (slot.process !== undefined)
          processes.set(slot.spec.name, [...(processes.get(slot.spec.name) ?? []), slot.process]);
      }
    };
    // Record each process as it comes up, so a failure of another still lets close() stop it.
    const results = await Promise.allSettled(
      slots.map(async (slot) => {
        slot.process = await launch(slot.spec.name, slot.spec.port, slot.spec.env, slot.spec.label);
        syncProcesses();
      }),
    );
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;

    const first = (name: ServiceName): ServiceProcess => {
      const service = processes.get(name)?.[0];
      if (service === undefined) throw new Error(`${name} is not part of this stack`);
      return service;
    };
    const redisClient = (): Redis => {
      client ??= redis.client({ maxRetriesPerRequest: 1 });
      return client;
    };
    const faultsOf = async (service: ServiceProcess): Promise<FaultSnapshot> =>
      json<FaultSnapshot>(await fetch(`${service.url}/__faults`), 200, `GET ${service.name}/__faults`);

    const stack: Stack = {
      redis,
      urls: {
        provider: first('provider').url,
        payments: first('payments').url,
        orders: first('orders').url,
        gateway: first('gateway').url,
        ...(options.worker ? { worker: first('worker').url } : {}),
      },
      processes: (name) => processes.get(name) ?? [],
      restart: async (name, env = {}) => {
        const targets = slots.filter((slot) => slot.spec.name === name);
        if (targets.length === 0) throw new Error(`${name} is not part of this stack`);
        for (const slot of targets) {
          const next = { ...slot.spec.env, ...env };
          // Already running with exactly these settings: nothing to do.
          if (slot.process !== undefined && sameEnv(slot.env, next)) continue;
          if (slot.process !== undefined) await stop(slot.process);
          slot.process = undefined;
          syncProcesses();
          slot.process = await launch(name, slot.spec.port, next, slot.spec.label);
          slot.env = next;
          syncProcesses();
        }
      },
      setFaults: async (name, rules) => {
        for (const service of processes.get(name) ?? []) {
          const res = await fetch(`${service.url}/__faults`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ rules }),
          });
          await json(res, 200, `PUT ${service.name}/__faults`);
        }
      },
      faults: async (name, replica = 0) => {
        const service = processes.get(name)?.[replica];
        if (service === undefined) throw new Error(`${name}[${replica}] is not part of this stack`);
        return faultsOf(service);
      },
      faultCounts: async (name) => {
        const totals: Record<string, number> = {};
        for (const service of processes.get(name) ?? []) {
          for (const [route, count] of Object.entries((await faultsOf(service)).requests)) {
            totals[route] = (totals[route] ?? 0) + count;
          }
        }
        return totals;
      },
      providerCharges: async () =>
        json<{ calls: number; charges: ProviderCharge[] }>(
          await fetch(`${first('provider').url}/v1/charges`),
          200,
          'GET provider/v1/charges',
        ),
      redisKeys: async (prefix) => {
        const keys: string[] = [];
        const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
        let cursor = '0';
        do {
          const [next, batch] = await redisClient().scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
        return keys.sort();
      },
      reset: async () => {
        const all = [...processes.values()].flat();
        await Promise.all(
          all.map(async (service) => {
            const res = await fetch(`${service.url}/__faults`, { method: 'DELETE' });
            if (res.status >= 300) throw new Error(`DELETE ${service.name}/__faults answered ${res.status}`);
          }),
        );
        for (const ledger of ['charges', 'emails']) {
          const res = await fetch(`${first('provider').url}/v1/${ledger}`, { method: 'DELETE' });
          if (res.status !== 204) throw new Error(`DELETE provider/v1/${ledger} answered ${res.status}`);
        }
      },
      close,
    };
    return stack;
  } catch (error) {
    await close();
    throw error;
  }
}

/** A handle on a Redis this stack does not own: no control, and closing it leaves it running. */
function externalRedis(url: string): RedisHandle {
  const parsed = new URL(url);
  const host = parsed.hostname;
  const port = Number(parsed.port || 6379);
  return {
    url,
    host,
    port,
    source: 'env',
    client: (clientOptions) => new Redis({ host, port, ...clientOptions }),
    close: async () => {},
  };
}

function sameEnv(a: ServiceEnv, b: ServiceEnv): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => a[key] === b[key]);
}

/** SIGTERM (graceful shutdown), then SIGKILL if the process is still there after 5 s. */
async function stop(service: ServiceProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 5_000);
  });
  await Promise.race([service.kill('SIGTERM'), grace]);
  clearTimeout(timer);
  await service.kill('SIGKILL');
}

async function json<T = unknown>(res: Response, expected: number, what: string): Promise<T> {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${what} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
