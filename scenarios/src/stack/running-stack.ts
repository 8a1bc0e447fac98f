/** A started stack: its URLs, its processes, and the controls the suites and the scenarios use. */
import type { PostgresHandle, RedisHandle, ServiceProcess, SpanCollector } from '@retry-safe/testing';
import type { Redis } from 'ioredis';
import type { FaultRule, FaultSnapshot } from '../engine/target.js';
import type { ProviderCharge, ServiceEnv, ServiceName, Stack } from './stack-types.js';
import type { StackServices } from './stack-services.js';

export class RunningStack implements Stack {
  readonly urls: Stack['urls'];
  readonly databaseUrl: string;
  private readonly postgres: PostgresHandle | undefined;
  private client: Redis | undefined;

  constructor(
    readonly redis: RedisHandle,
    private readonly services: StackServices,
    withWorker: boolean,
    database: { readonly databaseUrl: string; readonly postgres: PostgresHandle | undefined },
    readonly traces: SpanCollector | undefined = undefined,
  ) {
    this.databaseUrl = database.databaseUrl;
    this.postgres = database.postgres;
    this.urls = {
      provider: services.first('provider').url,
      payments: services.first('payments').url,
      orders: services.first('orders').url,
      gateway: services.first('gateway').url,
      ...(withWorker ? { worker: services.first('worker').url } : {}),
      // Only the gateway's /__* routes are off its own port (its admin listener).
      admin: { gateway: services.first('gateway').adminUrl },
    };
  }

  processes(name: ServiceName): readonly ServiceProcess[] {
    return this.services.processes(name);
  }

  restart(name: ServiceName, env: ServiceEnv = {}): Promise<void> {
    return this.services.restart(name, env);
  }

  async setFaults(name: ServiceName, rules: readonly FaultRule[]): Promise<void> {
    for (const service of this.processes(name)) {
      const res = await fetch(`${service.adminUrl}/__faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules }),
      });
      await json(res, 200, `PUT ${service.name}/__faults`);
    }
  }

  async faults(name: ServiceName, replica = 0): Promise<FaultSnapshot> {
    const service = this.processes(name)[replica];
    if (service === undefined) throw new Error(`${name}[${replica}] is not part of this stack`);
    return faultsOf(service);
  }

  async faultCounts(name: ServiceName): Promise<Record<string, number>> {
    const totals: Record<string, number> = {};
    for (const service of this.processes(name)) {
      for (const [route, count] of Object.entries((await faultsOf(service)).requests)) {
        totals[route] = (totals[route] ?? 0) + count;
      }
    }
    return totals;
  }

  async providerCharges(): Promise<{ calls: number; charges: ProviderCharge[] }> {
    const res = await fetch(`${this.urls.provider}/v1/charges`);
    return json<{ calls: number; charges: ProviderCharge[] }>(res, 200, 'GET provider/v1/charges');
  }

  async redisKeys(prefix: string): Promise<string[]> {
    this.client ??= this.redis.client({ maxRetriesPerRequest: 1 });
    const keys: string[] = [];
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, batch] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys.sort();
  }

  async reset(): Promise<void> {
    const all = (['provider', 'payments', 'orders', 'gateway', 'worker'] as const).flatMap((name) =>
      this.processes(name),
    );
    await Promise.all(
      all.map(async (service) => {
        const res = await fetch(`${service.adminUrl}/__faults`, { method: 'DELETE' });
        if (res.status >= 300) throw new Error(`DELETE ${service.name}/__faults answered ${res.status}`);
      }),
    );
    for (const ledger of ['charges', 'emails']) {
      const res = await fetch(`${this.urls.provider}/v1/${ledger}`, { method: 'DELETE' });
      if (res.status !== 204) throw new Error(`DELETE provider/v1/${ledger} answered ${res.status}`);
    }
    this.traces?.clear();
  }

  async close(): Promise<void> {
    await this.services.stopAll();
    this.client?.disconnect();
    await this.redis.close();
    await this.postgres?.close();
    await this.traces?.close();
  }
}

async function faultsOf(service: ServiceProcess): Promise<FaultSnapshot> {
  return json<FaultSnapshot>(
    await fetch(`${service.adminUrl}/__faults`),
    200,
    `GET ${service.name}/__faults`,
  );
}

async function json<T = unknown>(res: Response, expected: number, what: string): Promise<T> {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${what} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
