/**
 * What the failure suites share: the routes they count, traffic per service, health and metric sums over every
 * process of a service, and a client that retries with the same key until it gets a final answer.
 */
import { waitFor, metricValue } from '@retry-safe/testing';
import type { Response } from 'supertest';
import { pay, type PaymentCall } from '../support/client.js';
import type { ServiceName, Stack } from '@retry-safe/scenarios';

export const PROBLEM = /^application\/problem\+json/;
/** The public route (gateway) and orders' route share a template. */
export const ORDER_PAYMENTS_ROUTE = 'POST /v1/orders/:orderId/payments';
export const PAYMENTS_ROUTE = 'POST /v1/payments';
export const CHARGES_ROUTE = 'POST /v1/charges';

/** Requests of one payment's path that reached each service, summed over replicas. */
export interface PaymentTraffic {
  gateway: number;
  orders: number;
  payments: number;
  provider: number;
}

/** How many requests each hop of the payment path received since the last `stack.reset()`. */
export async function paymentTraffic(stack: Stack): Promise<PaymentTraffic> {
  const [gateway, orders, payments, provider] = await Promise.all([
    stack.faultCounts('gateway'),
    stack.faultCounts('orders'),
    stack.faultCounts('payments'),
    stack.faultCounts('provider'),
  ]);
  return {
    gateway: gateway[ORDER_PAYMENTS_ROUTE] ?? 0,
    orders: orders[ORDER_PAYMENTS_ROUTE] ?? 0,
    payments: payments[PAYMENTS_ROUTE] ?? 0,
    provider: provider[CHARGES_ROUTE] ?? 0,
  };
}

/** Resolves once every process of `service` answers `GET /health` with 200 (payments: Redis answers a PING). */
export async function healthy(stack: Stack, service: ServiceName, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    `${service} healthy`,
    async () => {
      for (const process of stack.processes(service)) {
        const res = await fetch(`${process.url}/health`);
        if (res.status !== 200) throw new Error(`${process.name} health ${res.status}`);
      }
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/** A Prometheus sample summed over every process of `service` (0 where absent). */
export async function metricSum(
  stack: Stack,
  service: ServiceName,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const values = await Promise.all(
    stack.processes(service).map((process) => metricValue(process.url, name, labels)),
  );
  return values.reduce((sum, value) => sum + value, 0);
}

/** One attempt of {@link payUntilFinal}: when it was sent and what came back. */
export interface Attempt {
  sentAt: number;
  res: Response;
}

/**
 * A client that retries the same payment (same key, same parameters) every `intervalMs` while the answer is a 409
 * or a 5xx, and stops at the first other answer. Returns every attempt, the final one last.
 */
export async function payUntilFinal(
  stack: Stack,
  call: PaymentCall,
  { intervalMs = 250, timeoutMs = 30_000 }: { intervalMs?: number; timeoutMs?: number } = {},
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sentAt = Date.now();
    const res = await pay(stack, call);
    attempts.push({ sentAt, res });
    if (res.status !== 409 && res.status < 500) return attempts;
    if (Date.now() > deadline) {
      throw new Error(`no final answer within ${timeoutMs} ms; last: ${res.status} ${res.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
