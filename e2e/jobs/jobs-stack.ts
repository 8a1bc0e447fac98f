/**
 * The stacks the jobs suites start: a Redis of their own and a provider-sim (a {@link JobsStack}), and worker pools
 * on it, each a producer queue and the worker processes of one BullMQ and idempotency prefix.
 */
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import {
  invoiceQueue,
  startProvider,
  startWorker,
  uniqueTag,
  type InvoiceJobData,
  type InvoiceReceipt,
  type Provider,
  type WorkerProcess,
} from './jobs-harness.js';

/** A producer queue and the workers started on its prefix. */
export class WorkerPool {
  readonly queue: Queue<InvoiceJobData, InvoiceReceipt>;
  readonly workers: WorkerProcess[] = [];

  /** `env` is given to every worker of the pool, under what {@link start} adds. */
  constructor(
    private readonly redisUrl: string,
    private readonly provider: Provider,
    readonly prefix: string,
    private readonly env: Record<string, string> = {},
  ) {
    this.queue = invoiceQueue(redisUrl, prefix);
  }

  /** Starts one more worker on the pool's prefix. */
  async start(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = await startWorker({
      name,
      redisUrl: this.redisUrl,
      providerUrl: this.provider.url,
      prefix: this.prefix,
      keyPrefix: `${this.prefix}:idem:`,
      env: { ...this.env, ...env },
    });
    this.workers.push(worker);
    return worker;
  }

  /** Closes the queue, then stops every worker still running. */
  async close(): Promise<void> {
    await this.queue.close();
    for (const worker of this.workers.splice(0)) await worker.process.kill('SIGTERM');
  }
}

/** A Redis and a provider-sim, shared by the pools of one describe block. */
export interface JobsStack {
  readonly redis: RedisHandle;
  readonly provider: Provider;
  /** A pool on a fresh prefix `e2e-<name>-<tag>`; the caller closes it. */
  pool(name: string, env?: Record<string, string>): WorkerPool;
  /** Stops the provider, then the Redis. */
  close(): Promise<void>;
}

/** Starts a Redis of its own and provider-sim (`dedup` on or off; `faults` mounts its fault routes). */
export async function startJobsStack(
  dedup: 'on' | 'off',
  options: { faults?: boolean } = {},
): Promise<JobsStack> {
  const redis = await startRedis();
  const provider = await startProvider('provider-sim', dedup, options);
  return {
    redis,
    provider,
    pool: (name, env) => new WorkerPool(redis.url, provider, `e2e-${name}-${uniqueTag()}`, env),
    close: async () => {
      await provider.process.kill('SIGTERM');
      await redis.close();
    },
  };
}

/** A worker process and the producer's queue on a fresh BullMQ and idempotency prefix. */
export interface WorkerGroup {
  readonly worker: WorkerProcess;
  readonly queue: Queue<InvoiceJobData, InvoiceReceipt>;
  readonly prefix: string;
  /** Closes the queue, then stops the worker. */
  close(): Promise<void>;
}

/** Starts one worker on `redisUrl` sending to `provider`, and its producer queue, on a prefix of its own. */
export async function startWorkerGroup(
  name: string,
  redisUrl: string,
  provider: Provider,
  env: Record<string, string> = {},
): Promise<WorkerGroup> {
  const pool = new WorkerPool(redisUrl, provider, `e2e-${name}-${uniqueTag()}`, env);
  const worker = await pool.start(name);
  return { worker, queue: pool.queue, prefix: pool.prefix, close: () => pool.close() };
}
