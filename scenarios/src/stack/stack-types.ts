/** The types of a scenario stack: its services, options and the handle a running one gives. */
import type { RedisHandle, ServiceProcess, SpanCollector, StartRedisOptions } from '@retry-safe/testing';
import type { FaultRule, FaultSnapshot } from '../engine/target.js';

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
  /** Orders processes behind the gateway (round robin through `ORDERS_URL`), on one database. @default 1 */
  ordersReplicas?: number;
  /** How the private Redis runs (`appendOnly` to survive restarts). Always controllable. */
  redis?: Omit<StartRedisOptions, 'controllable'>;
  /**
   * Use the Redis at this URL instead of starting a private one (then `stack.redis.control` is absent and `redis` is
   * ignored). The demo passes a gate it can close, in front of whatever Redis it found.
   */
  redisUrl?: string;
  /** Orders' database at this URL instead of a fresh one from `startPostgres()` (left in place on close). */
  databaseUrl?: string;
  /** Print every service's output, prefixed. @default process.env.E2E_LOGS === '1' */
  logs?: boolean;
  /**
   * Collect every service's spans in this process: a {@link SpanCollector} the services export to over OTLP/HTTP
   * (`OTEL_EXPORTER_OTLP_ENDPOINT`, batches sent every 50 ms), as `stack.traces`. @default false
   */
  traces?: boolean;
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
  /** `DATABASE_URL` of orders. */
  readonly databaseUrl: string;
  /** The spans the services exported, when started with `traces: true` (cleared by {@link Stack.reset}). */
  readonly traces: SpanCollector | undefined;
  /**
   * Base URL of each running service (for payments and orders: the first replica), and under `admin` the base URL
   * of the gateway's `/__*` routes (its admin listener; `adminUrlOf` reads it). A process's own is its `adminUrl`.
   */
  readonly urls: Readonly<Record<Exclude<ServiceName, 'worker'>, string>> & {
    readonly worker?: string;
    readonly admin: Readonly<Partial<Record<ServiceName, string>>>;
  };
  /** The processes of a service (payments and orders may have several), to kill or restart them. */
  processes(service: ServiceName): readonly ServiceProcess[];
  /**
   * Stops a service (every replica) and starts it again on the same port with `env` on top of the settings it was
   * first started with (those of an earlier restart are dropped): a cheap way to compare designs on one stack.
   * A no-op for a process already running with exactly those settings.
   */
  restart(service: ServiceName, env?: ServiceEnv): Promise<void>;
  /** Replaces the fault rules of a service (every replica). */
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
