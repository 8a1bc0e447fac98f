/**
 * The stack of `pnpm demo` and `pnpm console`: a Redis (REDIS_URL, else a private redis-server, else a container)
 * behind a TCP gate the redis-down scenario can close, a private PostgreSQL, and the five services as processes with
 * faults on, on loopback. Isolated even on a shared Redis: its own key prefix and its own queue.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { startPrivateRedisServer, startRedis, type RedisHandle } from '@retry-safe/testing';
import { startRedisGate, type RedisGate } from '../engine/redis-gate.js';
import { stackTarget } from '../engine/stack-target.js';
import type { ScenarioTarget } from '../engine/target.js';
import { startStack } from './stack.js';
import type { Stack } from './stack-types.js';

/** Options of {@link startDemoStack}. */
export interface DemoStackOptions {
  /** Progress lines (where Redis came from, what starts). */
  readonly log?: (line: string) => void;
  /** Collect the services' spans in this process (`stack.traces`). @default false */
  readonly traces?: boolean;
}

/** A running demo stack: the stack, the scenarios' target on it (Redis control through the gate), and its end. */
export interface DemoStack {
  readonly stack: Stack;
  readonly target: ScenarioTarget;
  /** Stops the services, the gate and Redis (once; later calls wait for the first). */
  close(): Promise<void>;
}

/** Starts the demo stack; on a failure, whatever it started is stopped and the error thrown. */
export async function startDemoStack(options: DemoStackOptions = {}): Promise<DemoStack> {
  const log = options.log ?? (() => {});
  const redis = await findRedis();
  let gate: RedisGate | undefined;
  try {
    log(`Redis from ${describeSource(redis)} at ${redis.url}`);
    gate = await startRedisGate(redis);
    log('starting provider-sim, payments, orders, gateway and invoice-worker (FAULTS_ENABLED=true)');
    const tag = `demo-${randomUUID().slice(0, 8)}`;
    const stack = await startStack({
      redisUrl: gate.url,
      traces: options.traces ?? false,
      payments: { IDEMPOTENCY_KEY_PREFIX: `${tag}:idem:` },
      orders: { BULLMQ_PREFIX: tag },
      worker: { BULLMQ_PREFIX: tag, IDEMPOTENCY_KEY_PREFIX: `${tag}:idem:` },
    });
    const opened = gate;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        await stack.close().catch((error: unknown) => log(String(error)));
        await opened.close().catch(() => {});
        await redis.close().catch((error: unknown) => log(String(error)));
      })());
    return { stack, target: stackTarget(stack, gate), close };
  } catch (error) {
    await gate?.close().catch(() => {});
    await redis.close().catch(() => {});
    throw error;
  }
}

/** REDIS_URL; else a private redis-server; else testcontainers (startRedis tries a container when Docker answers). */
async function findRedis(): Promise<RedisHandle> {
  if (process.env['REDIS_URL']) return startRedis();
  if (await hasRedisServer()) return startPrivateRedisServer();
  try {
    return await startRedis();
  } catch (error) {
    throw new Error(
      'no Redis: set REDIS_URL, install redis-server (Debian: apt-get install redis-server), or start a Docker ' +
        `engine for testcontainers (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
}

function hasRedisServer(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    probe.on('error', () => resolve(false));
    probe.on('exit', (code) => resolve(code === 0));
  });
}

function describeSource(redis: RedisHandle): string {
  switch (redis.source) {
    case 'env':
      return 'REDIS_URL';
    case 'redis-server':
      return 'a private redis-server';
    case 'testcontainers':
      return 'a testcontainers container (redis:7-alpine)';
  }
}
