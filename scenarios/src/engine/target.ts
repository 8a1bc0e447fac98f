/**
 * What a scenario runs against: the URLs of a running stack and the controls it needs, all over HTTP, so the same
 * definition runs on the stack an e2e suite started, on `pnpm stack`, on docker compose (with the scenarios
 * override) and inside `pnpm demo`. The services must run with `FAULTS_ENABLED=true` (the `/__faults`,
 * `/__config` and `/__requests` routes).
 */
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import type { FaultRuleInput, FaultSnapshot } from '@retry-safe/fault-injection';
import { waitFor } from '@retry-safe/testing';
import { send, sendExpecting } from './http.js';

/** A rule of `PUT /__faults`, as packages/fault-injection defines it. */
export type FaultRule = FaultRuleInput;
/** `GET /__faults`: the rules (each with how often it fired) and requests per `METHOD /route/template`. */
export type { FaultSnapshot };

/** The services of a stack. */
export const SERVICES = ['gateway', 'orders', 'payments', 'provider', 'worker'] as const;
/** One of {@link SERVICES}. */
export type Service = (typeof SERVICES)[number];
/** The services with a `/__config` (a design to switch): every one of them. */
export type ConfigurableService = Service;

/** Base URL of every service (`worker` only where the invoice worker runs), and where their admin routes are. */
export interface StackUrls {
  readonly gateway: string;
  readonly orders: string;
  readonly payments: string;
  readonly provider: string;
  readonly worker?: string;
  /**
   * The base URL of the `/__*` routes of a service that serves them on an admin listener of its own (`ADMIN_PORT`:
   * the gateway's, which never serves them on its public port); a service not named here serves them on its URL.
   * Read it with {@link adminUrlOf}.
   */
  readonly admin?: Readonly<Partial<Record<Service, string>>>;
  /**
   * `ADMIN_TOKEN` of the stack, sent to every `/__*` route and to provider-sim's ledger resets (services off
   * loopback demand it: docker-compose.scenarios.yml). @default none (a loopback stack)
   */
  readonly adminToken?: string;
}

/**
 * The base URL of `service`'s `/__*` routes (`/__faults`, `/__config`, `/__requests`): its admin listener when it
 * has one, else its own URL. Every caller of those routes goes through here.
 */
export function adminUrlOf(urls: StackUrls, service: Service): string {
  const url = urls.admin?.[service] ?? urls[service];
  if (url === undefined) throw new Error(`no URL for ${service} (set WORKER_URL to run the jobs scenario)`);
  return url;
}

/** The `Authorization` header of the stack's admin calls (none without an `adminToken`). */
export function adminHeaders(urls: StackUrls): Record<string, string> {
  return urls.adminToken === undefined ? {} : { authorization: `Bearer ${urls.adminToken}` };
}

/** A request as a service's `GET /__requests` lists it (the HTTP services). */
export interface RequestEntry {
  seq: number;
  service: 'gateway' | 'orders' | 'payments' | 'provider';
  requestId: string;
  method: string;
  route: string;
  path: string;
  /** `idempotencyKeyDigest` of its `Idempotency-Key` (journals never keep the key). */
  idempotencyKeyDigest?: string;
  startedAt: number;
  endedAt: number;
  status: number | 'aborted';
  replayed: boolean;
}

/** A delivery as the worker's `GET /__requests` lists it. */
export interface DeliveryEntry {
  seq: number;
  service: 'worker';
  requestId: string;
  jobId: string;
  attempt: number;
  startedAt: number;
  endedAt: number;
  status: 'completed' | 'failed';
  outcome?: string;
  error?: string;
}

/** One entry of any journal. */
export type JournalEntry = RequestEntry | DeliveryEntry;

/** provider-sim's `GET /v1/charges`. */
export interface ChargeLedger {
  calls: number;
  charges: Array<{ id: string; idempotencyKey: string; amount: number; currency: string; createdAt: string }>;
}

/** provider-sim's `GET /v1/emails`. */
export interface EmailLedger {
  calls: number;
  emails: Array<{ id: string; idempotencyKey: string; to: string; createdAt: string }>;
}

/** Makes the Redis of the stack unavailable and available again. */
export interface RedisControl {
  /** How it does it, for the output (`the demo's Redis gate`, `docker compose stop redis`...). */
  readonly description: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a service again after a `drop` rule at one of its fault points killed it (SIGKILL). */
export interface RestartControl {
  /** How it does it, for the output (`the demo starts it again`, `pnpm stack's supervisor`...). */
  readonly description: string;
  /** Resolves once `service`, which exited, runs again and answers `GET /health` with 200. */
  restart(service: Service): Promise<void>;
}

/** A running stack, as the scenarios see it. */
export interface ScenarioTarget {
  readonly urls: StackUrls;
  /** Present when the runner may take Redis away (the demo, an e2e stack, or commands given by the user). */
  readonly redisControl?: RedisControl;
  /** Present when killed services come back (the demo and e2e stacks start them; `pnpm stack` and compose too). */
  readonly restartControl?: RestartControl;
  setFaults(service: Service, rules: readonly FaultRule[]): Promise<void>;
  faults(service: Service): Promise<FaultSnapshot>;
  /** Replaces the overrides of a service's settings (`PUT /__config`); `{}` restores its start-up settings. */
  configure(service: ConfigurableService, overrides: Record<string, unknown>): Promise<void>;
  journal(service: Service): Promise<JournalEntry[]>;
  charges(): Promise<ChargeLedger>;
  emails(): Promise<EmailLedger>;
  /** Faults, counters, ledgers, settings and journals of every service back to their start. */
  reset(): Promise<void>;
  /** Resolves once every service answers `GET /health` with 200. */
  healthy(timeoutMs?: number): Promise<void>;
}

/** Options of {@link httpTarget}. */
export interface HttpTargetOptions {
  readonly redisControl?: RedisControl;
  readonly restartControl?: RestartControl;
}

/** A {@link ScenarioTarget} that reaches every service over HTTP at `urls` (its admin routes at {@link adminUrlOf}). */
export function httpTarget(urls: StackUrls, options: HttpTargetOptions = {}): ScenarioTarget {
  const services = (): Service[] => SERVICES.filter((service) => service !== 'worker' || urls.worker);
  const urlOf = (service: Service): string => {
    const url = urls[service];
    if (url === undefined) throw new Error(`no URL for ${service} (set WORKER_URL to run the jobs scenario)`);
    return url;
  };
  const headers = adminHeaders(urls);
  const admin = <T>(service: Service, path: string, method: string, expected: number, body?: unknown) =>
    sendExpecting<T>(
      `${adminUrlOf(urls, service)}${path}`,
      { method, headers, ...(body === undefined ? {} : { body }) },
      expected,
    );
  const target: ScenarioTarget = {
    urls,
    ...(options.redisControl === undefined ? {} : { redisControl: options.redisControl }),
    ...(options.restartControl === undefined ? {} : { restartControl: options.restartControl }),
    setFaults: async (service, rules) => {
      await admin(service, '/__faults', 'PUT', 200, { rules });
    },
    faults: (service) => admin<FaultSnapshot>(service, '/__faults', 'GET', 200),
    configure: async (service, overrides) => {
      await admin(service, '/__config', 'PUT', 200, overrides);
    },
    journal: async (service) =>
      (await admin<{ requests: JournalEntry[] }>(service, '/__requests', 'GET', 200)).requests,
    charges: () => sendExpecting<ChargeLedger>(`${urls.provider}/v1/charges`, {}, 200),
    emails: () => sendExpecting<EmailLedger>(`${urls.provider}/v1/emails`, {}, 200),
    reset: async () => {
      const calls: Array<Promise<unknown>> = [];
      for (const service of services()) calls.push(admin(service, '/__faults', 'DELETE', 204));
      for (const service of services()) calls.push(admin(service, '/__config', 'DELETE', 204));
      for (const ledger of ['charges', 'emails']) {
        calls.push(sendExpecting(`${urls.provider}/v1/${ledger}`, { method: 'DELETE', headers }, 204));
      }
      await Promise.all(calls);
      // Journals last, so nothing of the reset itself is in them.
      await Promise.all(services().map((service) => admin(service, '/__requests', 'DELETE', 204)));
    },
    healthy: async (timeoutMs = 20_000) => {
      await Promise.all(
        services().map((service) =>
          waitFor(
            `${service} healthy`,
            async () => {
              const res = await send(`${urlOf(service)}/health`, { timeoutMs: 2_000 });
              if (res.status !== 200) throw new Error(`${service} /health answered ${res.status}`);
            },
            { timeoutMs, intervalMs: 100 },
          ),
        ),
      );
    },
  };
  return target;
}

/**
 * A {@link RestartControl} for a stack under a supervisor that starts a crashed service again by itself (`pnpm
 * stack` after 1 s, docker compose's `restart: unless-stopped`): it waits for the service to answer again.
 */
export function supervisedRestart(urls: StackUrls, timeoutMs = 30_000): RestartControl {
  return {
    description: 'waits for its supervisor (pnpm stack, docker compose) to start it again',
    restart: async (service) => {
      const url = urls[service];
      if (url === undefined) throw new Error(`no URL for ${service}`);
      await waitFor(
        `${service} started again by its supervisor (run the stack with pnpm stack or docker compose)`,
        async () => {
          const res = await send(`${url}/health`, { timeoutMs: 2_000 });
          if (res.status !== 200) throw new Error(`${service} /health answered ${res.status}`);
        },
        { timeoutMs, intervalMs: 100 },
      );
    },
  };
}

/** A {@link RedisControl} that runs shell commands (e.g. `docker compose stop redis` / `docker compose start redis`). */
export function commandRedisControl(stopCommand: string, startCommand: string): RedisControl {
  const run = promisify(exec);
  return {
    description: `\`${stopCommand}\`, then \`${startCommand}\``,
    stop: async () => {
      await run(stopCommand);
    },
    start: async () => {
      await run(startCommand);
    },
  };
}
