/** What each process of a stack is started with: its built entry, a free port, and its environment. */
import { join } from 'node:path';
import { freePort } from '@retry-safe/testing';
import { DEMO_API_TOKENS } from '../demo-tenants.js';
import { repoRoot } from '../repo-root.js';
import type { ServiceEnv, ServiceName, StackOptions } from './stack-types.js';

/** One process to start (payments may have several). */
export interface ServiceSpec {
  readonly name: ServiceName;
  /** Its name in logs: `payments-2` for a second replica. */
  readonly label: string;
  readonly port: number;
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
  const replicas = Math.max(1, options.paymentsReplicas ?? 1);
  const ports = {
    provider: await freePort(),
    payments: await Promise.all(Array.from({ length: replicas }, () => freePort())),
    orders: await freePort(),
    gateway: await freePort(),
    gatewayMetrics: await freePort(),
    worker: await freePort(),
  };
  const specs: ServiceSpec[] = [
    spec('provider', ports.provider, { PROVIDER_PORT: String(ports.provider), ...options.provider }),
    ...ports.payments.map((port, index) => ({
      ...spec('payments', port, {
        PAYMENTS_PORT: String(port),
        PROVIDER_URL: url(ports.provider),
        ...options.payments,
      }),
      label: replicas > 1 ? `payments-${index + 1}` : 'payments',
    })),
    spec('orders', ports.orders, {
      ORDERS_PORT: String(ports.orders),
      PAYMENTS_URL: ports.payments.map(url).join(','),
      ...options.orders,
    }),
    spec('gateway', ports.gateway, {
      GATEWAY_PORT: String(ports.gateway),
      // The gateway serves /metrics on a listener of its own (its default port would clash between stacks).
      METRICS_PORT: String(ports.gatewayMetrics),
      ORDERS_URL: url(ports.orders),
      API_TOKENS: DEMO_API_TOKENS,
      ...options.gateway,
    }),
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

function spec(name: ServiceName, port: number, env: ServiceEnv): ServiceSpec {
  return { name, label: name, port, env };
}
