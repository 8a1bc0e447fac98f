/** What each process of a stack is started with: its built entry, a free port, and its environment. */
import { join } from 'node:path';
import { freePort } from '@retry-safe/testing';
import { DEMO_API_TOKENS } from '../demo-tenants.js';
import { repoRoot } from '../repo-root.js';
import type { ServiceEnv, ServiceName, StackOptions } from './stack-types.js';

/** One process to start (payments and orders may have several). */
export interface ServiceSpec {
  readonly name: ServiceName;
  /** Its name in logs: `payments-2` for a second replica. */
  readonly label: string;
  readonly port: number;
  /** Its admin listener's port (`ADMIN_PORT`), when its `/__*` routes are not on `port` (the gateway's). */
  readonly adminPort?: number;
  /** Its own settings, on top of what every service of the stack gets. */
  readonly env: ServiceEnv;
}

/** The built `main.js` of each service (`pnpm build` makes them). */
export const ENTRIES: Record<ServiceName, string> = {
  provider: entry('provider-sim'),
  payments: entry('payments'),
  orders: entry('orders'),
  gateway: entry('gateway'),
  worker: entry('invoice-worker'),
};

function entry(app: string): string {
  return join(repoRoot(), 'apps', app, 'dist', 'main.js');
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

/** Every process of the stack `options` asks for, each on a free port, wired to the others by URL. */
export async function serviceSpecs(options: StackOptions): Promise<ServiceSpec[]> {
  const freePorts = (count: number | undefined): Promise<number[]> =>
    Promise.all(Array.from({ length: Math.max(1, count ?? 1) }, () => freePort()));
  const ports = {
    provider: await freePort(),
    payments: await freePorts(options.paymentsReplicas),
    orders: await freePorts(options.ordersReplicas),
    gateway: await freePort(),
    gatewayMetrics: await freePort(),
    gatewayAdmin: await freePort(),
    worker: await freePort(),
  };
  const specs: ServiceSpec[] = [
    spec('provider', ports.provider, { PROVIDER_PORT: String(ports.provider), ...options.provider }),
    ...replicas('payments', ports.payments, (port) => ({
      PAYMENTS_PORT: String(port),
      PROVIDER_URL: url(ports.provider),
      ...options.payments,
    })),
    ...replicas('orders', ports.orders, (port) => ({
      ORDERS_PORT: String(port),
      PAYMENTS_URL: ports.payments.map(url).join(','),
      ...options.orders,
    })),
    {
      ...spec('gateway', ports.gateway, {
        GATEWAY_PORT: String(ports.gateway),
        // The gateway serves /metrics and the /__* routes on listeners of their own (loopback; their default ports
        // would clash between stacks).
        METRICS_PORT: String(ports.gatewayMetrics),
        ADMIN_PORT: String(ports.gatewayAdmin),
        ORDERS_URL: ports.orders.map(url).join(','),
        API_TOKENS: DEMO_API_TOKENS,
        HOST: '127.0.0.1',
        ...options.gateway,
      }),
      adminPort: ports.gatewayAdmin,
    },
  ];
  if (options.worker) {
    const workerEnv = typeof options.worker === 'object' ? options.worker : {};
    specs.push(
      spec('worker', ports.worker, {
        WORKER_PORT: String(ports.worker),
        MAIL_PROVIDER_URL: url(ports.provider),
        ...workerEnv,
      }),
    );
  }
  return specs;
}

/** One process per port, labelled `name-1`, `name-2`... when there are several (round robin behind their caller). */
function replicas(
  name: ServiceName,
  ports: readonly number[],
  env: (port: number) => ServiceEnv,
): ServiceSpec[] {
  return ports.map((port, index) => ({
    ...spec(name, port, env(port)),
    label: ports.length > 1 ? `${name}-${index + 1}` : name,
  }));
}

function spec(name: ServiceName, port: number, env: ServiceEnv): ServiceSpec {
  return { name, label: name, port, env };
}
