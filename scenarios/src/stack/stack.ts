/**
 * The whole system for a scenario: a private Redis the test controls, a PostgreSQL database of its own for orders
 * (`startPostgres`: a fresh database on `DATABASE_URL`'s server, else a private one), and provider-sim, payments, orders and the
 * gateway (and, on request, the invoice worker) as child processes started from their built `dist`, each on a free
 * port, with fault injection on and the two demo tenants. Build first (`pnpm build`).
 */
import { existsSync } from 'node:fs';
import {
  startPostgres,
  startRedis,
  startSpanCollector,
  type PostgresHandle,
  type RedisHandle,
  type SpanCollector,
} from '@retry-safe/testing';
import { Redis } from 'ioredis';
import { DEMO_INTERNAL_TOKEN } from '../demo-tenants.js';
import { RunningStack } from './running-stack.js';
import { ENTRIES, serviceSpecs } from './service-specs.js';
import { StackServices } from './stack-services.js';
import type { ServiceName, Stack, StackOptions } from './stack-types.js';

export type { ProviderCharge, ServiceEnv, ServiceName, Stack, StackOptions } from './stack-types.js';

/**
 * Starts Redis, PostgreSQL (and the span collector) together, then the services (in parallel: none needs another
 * to boot) and waits until each answers `GET /health`. If one fails to start, everything started is stopped and the
 * error is thrown.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const names: ServiceName[] = ['provider', 'payments', 'orders', 'gateway'];
  if (options.worker) names.push('worker');
  for (const name of names) {
    if (!existsSync(ENTRIES[name])) throw new Error(`${ENTRIES[name]} is missing: run \`pnpm build\` first`);
  }
  const { redis, postgres, traces } = await startServers(options);
  const services = new StackServices(
    {
      FAULTS_ENABLED: 'true',
      REDIS_URL: redis.url,
      INTERNAL_TOKEN: DEMO_INTERNAL_TOKEN,
      ...(traces === undefined ? {} : traceExportEnv(traces)),
    },
    options.logs,
  );
  try {
    const databaseUrl = options.databaseUrl ?? (postgres as PostgresHandle).url;
    const orders = { DATABASE_URL: databaseUrl, ...options.orders };
    await services.launchAll(await serviceSpecs({ ...options, orders }));
    return new RunningStack(redis, services, Boolean(options.worker), { databaseUrl, postgres }, traces);
  } catch (error) {
    await services.stopAll();
    await redis.close();
    await postgres?.close();
    await traces?.close();
    throw error;
  }
}

/** What the services need running first, started at once (none needs another); on a failure the others are closed. */
async function startServers(options: StackOptions): Promise<{
  redis: RedisHandle;
  postgres: PostgresHandle | undefined;
  traces: SpanCollector | undefined;
}> {
  const [redis, postgres, traces] = await Promise.allSettled([
    options.redisUrl === undefined
      ? startRedis({ ...options.redis, controllable: true })
      : Promise.resolve(externalRedis(options.redisUrl)),
    options.databaseUrl === undefined ? startPostgres() : Promise.resolve(undefined),
    options.traces === true ? startSpanCollector() : Promise.resolve(undefined),
  ]);
  if (redis.status === 'fulfilled' && postgres.status === 'fulfilled' && traces.status === 'fulfilled')
    return { redis: redis.value, postgres: postgres.value, traces: traces.value };
  const value = <T>(result: PromiseSettledResult<T>): T | undefined =>
    result.status === 'fulfilled' ? result.value : undefined;
  await value(redis)?.close();
  await value(postgres)?.close();
  await value(traces)?.close();
  const failed = [redis, postgres, traces].find((result) => result.status === 'rejected');
  throw (failed as PromiseRejectedResult).reason;
}

/** Every service exports its spans to `collector`, in batches sent every 50 ms (a test waits that long at most). */
function traceExportEnv(collector: SpanCollector): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' };
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
