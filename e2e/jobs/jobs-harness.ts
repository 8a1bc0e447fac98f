/**
 * Shared set-up of the jobs scenarios (issue 4): a real Redis, real provider-sim and invoice-worker processes
 * started from their built `dist`, and a real BullMQ Queue standing for the producer.
 *
 * Every suite and every worker group gets its own BullMQ prefix and idempotency key prefix, so suites can share a
 * Redis (REDIS_URL in CI) without seeing each other's jobs or records.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort, startServiceProcess, waitFor, type ServiceProcess } from '@retry-safe/testing';
import { Queue, type Job, type JobsOptions } from 'bullmq';

const PROVIDER_ENTRY = fileURLToPath(new URL('../../apps/provider-sim/dist/main.js', import.meta.url));
const WORKER_ENTRY = fileURLToPath(new URL('../../apps/invoice-worker/dist/main.js', import.meta.url));

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

/** A provider-sim process. */
export interface Provider {
  readonly process: ServiceProcess;
  readonly url: string;
  emails(): Promise<{ calls: number; emails: SentEmail[] }>;
  reset(): Promise<void>;
}

/** Starts provider-sim (`dedup` on or off) on a free port. */
export async function startProvider(name: string, dedup: 'on' | 'off'): Promise<Provider> {
  const port = await freePort();
  const service = await startServiceProcess({
    name,
    entry: PROVIDER_ENTRY,
    port,
    env: { PROVIDER_PORT: String(port), PROVIDER_DEDUP: dedup },
  });
  return {
    process: service,
    url: service.url,
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

/** An invoice-worker process with its fault admin API. */
export interface WorkerProcess {
  readonly process: ServiceProcess;
  /** `PUT /__faults`: replaces the worker's fault rules. */
  setFaults(rules: readonly Record<string, unknown>[]): Promise<void>;
  /** `GET /metrics` as text. */
  metrics(): Promise<string>;
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
    setFaults: async (rules) => {
      const res = await fetch(`${service.url}/__faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules }),
      });
      if (res.status !== 200) throw new Error(`PUT /__faults answered ${res.status}: ${await res.text()}`);
    },
    metrics: async () => (await fetch(`${service.url}/metrics`)).text(),
  };
}

/** The producer side: a BullMQ Queue on the group's prefix. */
export function invoiceQueue(redisUrl: string, prefix: string): Queue<InvoiceJobData, InvoiceReceipt> {
  return new Queue<InvoiceJobData, InvoiceReceipt>(INVOICES_QUEUE, {
    connection: { url: redisUrl },
    prefix,
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
