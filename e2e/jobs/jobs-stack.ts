/**
 * The stacks the jobs suites start: a Redis of their own and a provider-sim (a {@link JobsStack}), and worker pools
 * on it, each a producer queue and the worker processes of one BullMQ and idempotency prefix.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import type { Cluster } from 'ioredis';
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

/** Where a {@link WorkerPool} runs. */
export interface WorkerPoolOptions {
  /** The workers' REDIS_URL (a placeholder when `env` names a Cluster). */
  redisUrl: string;
  /** The producer queue's connection: a Cluster client the caller closes. @default redisUrl */
  queueRedis?: Cluster;
  provider: Provider;
  /** BullMQ prefix of the queue and every worker; the idempotency prefix is `<prefix>:idem:`. */
  prefix: string;
  /** Given to every worker of the pool, under what {@link WorkerPool.start} adds. */
  env?: Record<string, string>;
}

/** A producer queue and the workers started on its prefix. */
export class WorkerPool {
  readonly queue: Queue<InvoiceJobData, InvoiceReceipt>;
  readonly workers: WorkerProcess[] = [];
  readonly prefix: string;

  constructor(private readonly options: WorkerPoolOptions) {
    this.prefix = options.prefix;
    this.queue = invoiceQueue(options.queueRedis ?? options.redisUrl, options.prefix);
  }

  /** Starts one more worker on the pool's prefix. */
  async start(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const { redisUrl, provider, prefix } = this.options;
    const worker = await startWorker({
      name,
      redisUrl,
      providerUrl: provider.url,
      prefix,
      keyPrefix: `${prefix}:idem:`,
      env: { ...this.options.env, ...env },
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
  // A provider that fails to start must not leave the private Redis running (Jest would not exit).
  const provider = await startProvider('provider-sim', dedup, options).catch(async (error: unknown) => {
    await redis.close();
    throw error;
  });
  return {
    redis,
    provider,
    pool: (name, env) =>
      new WorkerPool({ redisUrl: redis.url, provider, prefix: `e2e-${name}-${uniqueTag()}`, env }),
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
  const pool = new WorkerPool({ redisUrl, provider, prefix: `e2e-${name}-${uniqueTag()}`, env });
  const worker = await pool.start(name);
  return { worker, queue: pool.queue, prefix: pool.prefix, close: () => pool.close() };
}

/** What {@link useWorkerGroup} started. */
export interface StackWithGroup {
  readonly stack: JobsStack;
  readonly group: WorkerGroup;
}

/**
 * A {@link JobsStack} (provider dedup `dedup`, fault routes with `faults`) and one worker group `name` with `env` on
 * it, for the enclosing `describe`: started before its tests, closed after them (the group first). Returns them,
 * for the tests to call.
 */
export function useWorkerGroup(
  name: string,
  dedup: 'on' | 'off',
  env: Record<string, string> = {},
  options: { faults?: boolean } = {},
): () => StackWithGroup {
  let started: StackWithGroup | undefined;
  let stack: JobsStack | undefined;
  beforeAll(async () => {
    stack = await startJobsStack(dedup, options);
    const group = await startWorkerGroup(name, stack.redis.url, stack.provider, env);
    started = { stack, group };
  });
  afterAll(async () => {
    await started?.group.close();
    await stack?.close();
  });
  return () => {
    if (started === undefined) throw new Error(`worker group ${name} is not started`);
    return started;
  };
}
