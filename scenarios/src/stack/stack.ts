/**
 * The whole system for a scenario: a private Redis the test controls, and provider-sim, payments, orders and the
 * gateway (and, on request, the invoice worker) as child processes started from their built `dist`, each on a free
 * port, with fault injection on and the two demo tenants. Build first (`pnpm build`).
 */
import { existsSync } from 'node:fs';
import {
  startRedis,
  type RedisHandle,
  type ServiceProcess,
  type StartRedisOptions,
} from '@retry-safe/testing';
import { Redis } from 'ioredis';
import type { FaultRule, FaultSnapshot } from '../engine/target.js';
import { DEMO_INTERNAL_TOKEN } from '../demo-tenants.js';
import { RunningStack } from './running-stack.js';
import { ENTRIES, serviceSpecs } from './service-specs.js';
import { StackServices } from './stack-services.js';

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
  const services = new StackServices(
    { FAULTS_ENABLED: 'true', REDIS_URL: redis.url, INTERNAL_TOKEN: DEMO_INTERNAL_TOKEN },
    options.logs,
  );
  try {
    await services.launchAll(await serviceSpecs(options));
    return new RunningStack(redis, services, Boolean(options.worker));
  } catch (error) {
    await services.stopAll();
    await redis.close();
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
