/**
 * Shared set-up of the jobs scenarios (issue 4): a real Redis, real provider-sim and invoice-worker processes
 * started from their built `dist`, and a real BullMQ Queue standing for the producer.
 *
 * Every suite and every worker group gets its own BullMQ prefix and idempotency key prefix, so suites can share a
 * Redis (REDIS_URL in CI) without seeing each other's jobs or records.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, startServiceProcess, waitFor, type ServiceProcess } from '@retry-safe/testing';
import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { Cluster } from 'ioredis';
import type { DeliveryEntry } from '@retry-safe/scenarios';

const PROVIDER_ENTRY = fileURLToPath(new URL('../../apps/provider-sim/dist/main.js', import.meta.url));
const WORKER_ENTRY = fileURLToPath(new URL('../../apps/invoice-worker/dist/main.js', import.meta.url));
const REDRIVE_ENTRY = fileURLToPath(
  new URL('../../apps/invoice-worker/dist/dead-letters/redrive.cli.js', import.meta.url),
);
const run = promisify(execFile);

/** The queue the worker consumes (the contract with the producer). */
export const INVOICES_QUEUE = 'invoices';

/** The job contract, as a producer writes it (the worker validates its own copy). */
export interface InvoiceJobData {
  deliveryId: string;
  tenantId: string;
  orderId: string;
  invoiceVersion: number;
  email: string;
}

/** What a completed job returns. */
export interface InvoiceReceipt {
  emailId: string;
}

/** A row of provider-sim's `GET /v1/emails`. */
export interface SentEmail {
  id: string;
  idempotencyKey: string;
  to: string;
  createdAt: string;
}

/**
 * Delivery options a producer must set: attempts and backoff are job options in BullMQ, and a delivery that meets
 * another one in flight (`IDEMPOTENCY_IN_PROGRESS`) relies on them to come back. Short delays keep scenarios fast.
 */
export const JOB_OPTIONS: JobsOptions = { attempts: 6, backoff: { type: 'exponential', delay: 200 } };

/** A short unique tag for prefixes. */
export function uniqueTag(): string {
  return randomUUID().slice(0, 8);
}

/** A request as provider-sim's `GET /__requests` lists it (FAULTS_ENABLED only). */
export interface ProviderRequest {
  route: string;
  method: string;
  /** `idempotencyKeyDigest` of its `Idempotency-Key` (a journal never keeps the key). */
  idempotencyKeyDigest?: string;
  startedAt: number;
  endedAt: number;
  status: number | 'aborted';
}

/** A provider-sim process. */
export interface Provider {
  readonly process: ServiceProcess;
  readonly url: string;
  emails(): Promise<{ calls: number; emails: SentEmail[] }>;
  reset(): Promise<void>;
  /** `PUT /__faults` (needs `faults: true`). */
  setFaults(rules: readonly Record<string, unknown>[]): Promise<void>;
  /** `GET /__faults`: each rule with how often it fired. */
  faults(): Promise<{ rules: Array<Record<string, unknown> & { fired: number }> }>;
  /** `GET /__requests`: every request it answered, those its fault rules answered included (`faults: true`). */
  requests(): Promise<ProviderRequest[]>;
}

/** Starts provider-sim (`dedup` on or off) on a free port; `faults` mounts its fault and journal routes. */
export async function startProvider(
  name: string,
  dedup: 'on' | 'off',
  options: { faults?: boolean; env?: Record<string, string> } = {},
): Promise<Provider> {
  const port = await freePort();
  const service = await startServiceProcess({
    name,
    entry: PROVIDER_ENTRY,
    port,
    env: {
      PROVIDER_PORT: String(port),
      PROVIDER_DEDUP: dedup,
      FAULTS_ENABLED: String(options.faults ?? false),
      ...options.env,
    },
  });
  return {
    process: service,
    url: service.url,
    setFaults: (rules) => putFaults(service.adminUrl, rules),
    faults: async () => (await fetch(`${service.adminUrl}/__faults`)).json() as never,
    requests: async () =>
      ((await (await fetch(`${service.adminUrl}/__requests`)).json()) as { requests: ProviderRequest[] })
        .requests,
    emails: async () => {
      const res = await fetch(`${service.url}/v1/emails`);
      if (res.status !== 200) throw new Error(`GET /v1/emails answered ${res.status}`);
      return (await res.json()) as { calls: number; emails: SentEmail[] };
    },
    reset: async () => {
      const res = await fetch(`${service.url}/v1/emails`, { method: 'DELETE' });
      if (res.status !== 204) throw new Error(`DELETE /v1/emails answered ${res.status}`);
    },
  };
}

/** Settings of one worker process. */
export interface WorkerSettings {
  name: string;
  redisUrl: string;
  providerUrl: string;
  /** BullMQ prefix: workers and the queue of one group share it. */
  prefix: string;
  /** Idempotency record prefix. */
  keyPrefix: string;
  /** Extra env (IDEMPOTENCY_ENABLED, WORKER_LOCK_DURATION_MS...). */
  env?: Record<string, string>;
}

/** One delivery as the worker's `GET /__requests` lists it. */
export type WorkerDelivery = DeliveryEntry;

/** An invoice-worker process with its fault admin API. */
export interface WorkerProcess {
  readonly process: ServiceProcess;
  /** `PUT /__faults`: replaces the worker's fault rules. */
  setFaults(rules: readonly Record<string, unknown>[]): Promise<void>;
  /** `GET /metrics` as text. */
  metrics(): Promise<string>;
  /** `GET /__requests`: the deliveries this process handled. */
  deliveries(): Promise<WorkerDelivery[]>;
}

async function putFaults(url: string, rules: readonly Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${url}/__faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  if (res.status !== 200) throw new Error(`PUT /__faults answered ${res.status}: ${await res.text()}`);
}

/** Starts invoice-worker with FAULTS_ENABLED=true on a free port. */
export async function startWorker(settings: WorkerSettings): Promise<WorkerProcess> {
  const port = await freePort();
  const service = await startServiceProcess({
    name: settings.name,
    entry: WORKER_ENTRY,
    port,
    env: {
      WORKER_PORT: String(port),
      REDIS_URL: settings.redisUrl,
      MAIL_PROVIDER_URL: settings.providerUrl,
      BULLMQ_PREFIX: settings.prefix,
      IDEMPOTENCY_KEY_PREFIX: settings.keyPrefix,
      FAULTS_ENABLED: 'true',
      ...settings.env,
    },
  });
  return {
    process: service,
    setFaults: (rules) => putFaults(service.adminUrl, rules),
    metrics: async () => (await fetch(`${service.url}/metrics`)).text(),
    deliveries: async () =>
      ((await (await fetch(`${service.adminUrl}/__requests`)).json()) as { requests: WorkerDelivery[] })
        .requests,
  };
}

/** The producer side: a BullMQ Queue on the group's prefix (a Redis URL, or a Cluster client the caller closes). */
export function invoiceQueue(
  redis: string | Cluster,
  prefix: string,
  name: string = INVOICES_QUEUE,
): Queue<InvoiceJobData, InvoiceReceipt> {
  return new Queue<InvoiceJobData, InvoiceReceipt>(name, {
    connection: typeof redis === 'string' ? { url: redis } : redis,
    prefix,
  });
}

/** The dead-letter queue's name (the worker's contract with its operators). */
export const DEAD_LETTER_QUEUE = 'invoices-dead-letter';

/** `pnpm invoices:redrive <args>` against a worker group's Redis and prefix: exit code and its JSON report. */
export async function redriveCli(
  env: Record<string, string>,
  args: readonly string[],
): Promise<{
  code: number;
  report: { redriven: { deadJobId: string; jobId: string }[]; notFound: string[] };
}> {
  try {
    const { stdout } = await run(process.execPath, [REDRIVE_ENTRY, ...args], {
      env: { ...process.env, NODE_OPTIONS: '', ...env },
    });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, report: JSON.parse(failed.stdout ?? '{}') };
  }
}

/** A first publication of version 1 of a new order's invoice, for a new tenant. */
export function freshInvoice(): InvoiceJobData {
  return invoice({
    tenantId: randomUUID(),
    orderId: randomUUID(),
    invoiceVersion: 1,
    email: 'ada@example.com',
  });
}

/** An invoice job with a fresh deliveryId (one publication). */
export function invoice(fields: Omit<InvoiceJobData, 'deliveryId'>): InvoiceJobData {
  return { deliveryId: randomUUID(), ...fields };
}

/** Waits until the job reaches `completed` or `failed` and returns it as stored. */
export async function settled(
  queue: Queue<InvoiceJobData, InvoiceReceipt>,
  jobId: string,
  timeoutMs = 20_000,
): Promise<{ state: 'completed' | 'failed'; job: Job<InvoiceJobData, InvoiceReceipt> }> {
  return waitFor(
    `job ${jobId} to settle`,
    async () => {
      const state = await queue.getJobState(jobId);
      if (state !== 'completed' && state !== 'failed') throw new Error(`job ${jobId} is ${state}`);
      // Read the job only once it settled: a copy read earlier has the returnvalue and counters of before.
      const job = await queue.getJob(jobId);
      if (job === undefined) throw new Error(`job ${jobId} not found`);
      return { state, job };
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/** Resolves when the process `pid` no longer exists (a crash fault killed it). */
export async function exited(worker: WorkerProcess, timeoutMs = 10_000): Promise<void> {
  const pid = worker.process.pid;
  await waitFor(
    `${worker.process.name} (pid ${pid}) to exit`,
    async () => {
      if (pid === undefined) return;
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      throw new Error('still running');
    },
    { timeoutMs, intervalMs: 50 },
  );
}
