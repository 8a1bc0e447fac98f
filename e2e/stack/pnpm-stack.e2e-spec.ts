/**
 * `pnpm stack` (scripts/stack.mjs) as a user runs it, on free ports, a private Redis and a database of its own: a
 * service that exits unexpectedly is logged and started again (after about a second), and SIGINT (Ctrl-C) stops
 * every service, leaving no process behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_TENANTS, repoRoot } from '@retry-safe/scenarios';
import {
  childrenOf,
  freePort,
  startPostgres,
  startRedis,
  trySignal,
  waitFor,
  type PostgresHandle,
  type RedisHandle,
} from '@retry-safe/testing';

/** The services of `pnpm stack` and the entry each runs (the worker too: `pnpm build` built it). */
const ENTRIES = {
  provider: 'apps/provider-sim/dist/main.js',
  payments: 'apps/payments/dist/main.js',
  orders: 'apps/orders/dist/main.js',
  gateway: 'apps/gateway/dist/main.js',
  worker: 'apps/invoice-worker/dist/main.js',
} as const;
type Service = keyof typeof ENTRIES;

/** Every service pid a test saw, so that none outlives the suite whatever the stack did. */
const seen = new Set<number>();

/** The processes whose parent is `parent`, by the entry they run (Linux /proc). */
function servicePids(parent: number): Map<Service, number> {
  const found = new Map<Service, number>();
  for (const pid of childrenOf(parent)) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const service = (Object.keys(ENTRIES) as Service[]).find((name) => cmdline.includes(ENTRIES[name]));
    if (service === undefined) continue;
    found.set(service, pid);
    seen.add(pid);
  }
  return found;
}

/** Whether a process with this pid exists. */
const alive = (pid: number): boolean => trySignal(pid, 0);

describe('pnpm stack', () => {
  let redis: RedisHandle;
  let postgres: PostgresHandle;
  let stack: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  const ports: Record<Service, number> = { provider: 0, payments: 0, orders: 0, gateway: 0, worker: 0 };
  const url = (service: Service): string => `http://127.0.0.1:${ports[service]}`;
  const logged = (pattern: RegExp, what: string, timeoutMs = 10_000): Promise<void> =>
    waitFor(
      what,
      async () => {
        if (!pattern.test(output)) throw new Error(`not logged yet; output so far:\n${output.slice(-2000)}`);
      },
      { timeoutMs, intervalMs: 50 },
    );

  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
    for (const service of Object.keys(ports) as Service[]) ports[service] = await freePort();
    stack = spawn(process.execPath, [join(repoRoot(), 'scripts', 'stack.mjs')], {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        REDIS_URL: redis.url,
        DATABASE_URL: postgres.url,
        GATEWAY_PORT: String(ports.gateway),
        ORDERS_PORT: String(ports.orders),
        PAYMENTS_PORT: String(ports.payments),
        PROVIDER_PORT: String(ports.provider),
        WORKER_PORT: String(ports.worker),
        // Every service gets the whole environment: 0 gives each its own free metrics port (the gateway's
        // default, 9400, would clash with another stack on this machine).
        METRICS_PORT: '0',
        // The queue on a Redis another suite may share.
        BULLMQ_PREFIX: `stack-${randomUUID().slice(0, 8)}`,
        DRAIN_TIMEOUT_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => stack.once('exit', (code) => resolve(code)));
    for (const stream of [stack.stdout, stack.stderr])
      stream?.on('data', (chunk: Buffer) => (output += chunk));
    await logged(/^stack: ready$/m, 'stack: ready', 45_000);
  }, 60_000);

  afterAll(async () => {
    // Only after a failure is anything left: the stack, and services it started or left behind.
    if (stack?.exitCode === null && stack.signalCode === null) {
      servicePids(stack.pid as number);
      stack.kill('SIGKILL');
      await exited;
    }
    for (const pid of [...seen].filter(alive)) process.kill(pid, 'SIGKILL');
    await redis?.close();
    await postgres?.close();
  });

  it('restarts a service killed with SIGKILL (logged), and SIGINT stops every service', async () => {
    const before = servicePids(stack.pid as number);
    expect([...before.keys()].sort()).toEqual(Object.keys(ENTRIES).sort());
    const killed = before.get('orders') as number;

    process.kill(killed, 'SIGKILL');
    await logged(/^\[orders\s*\] exited \(SIGKILL\)$/m, 'orders exited');
    await logged(/^\[orders\s*\] restarting in 1 s$/m, 'orders restarting');
    const restarted = await waitFor('a new orders process', async () => {
      const pid = servicePids(stack.pid as number).get('orders');
      if (pid === undefined || pid === killed) throw new Error('not started again yet');
      return pid;
    });
    expect(alive(killed)).toBe(false);

    // It answers again, through the gateway: an order is created in the database it migrated.
    const res = await waitFor(
      'an order through the gateway',
      async () => {
        const created = await fetch(`${url('gateway')}/v1/orders`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${DEMO_TENANTS.a.token}`,
            'content-type': 'application/json',
            'idempotency-key': `stack-${randomUUID()}`,
          },
          body: JSON.stringify({ amount: 1500, currency: 'EUR' }),
        });
        if (created.status !== 201) throw new Error(`POST /v1/orders answered ${created.status}`);
        return (await created.json()) as { status: string; amount: number; paidAmount: number };
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(res).toMatchObject({ status: 'awaiting_payment', amount: 1500, paidAmount: 0 });
    // Nothing else was restarted.
    const after = servicePids(stack.pid as number);
    expect(after).toEqual(new Map([...before, ['orders', restarted]]));

    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toMatch(/^stack: stopping \(SIGINT\)$/m);
    expect([...after.values()].filter(alive)).toEqual([]);
    // No service was started again while stopping.
    expect(output.match(/restarting in/g)).toHaveLength(1);
    for (const service of Object.keys(ENTRIES) as Service[]) {
      await expect(fetch(`${url(service)}/health`)).rejects.toThrow();
    }
  });
});
