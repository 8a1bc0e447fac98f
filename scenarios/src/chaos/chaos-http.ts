/** The chaos run's HTTP: a client that pays and retries like a careful one would, and the fault counters it reads. */
import { sleep } from '@retry-safe/testing';
import { DEMO_TENANTS } from '../demo-tenants.js';
import { createdOrderId, fixtureOrderBody } from '../engine/fixture-orders.js';
import type { FaultRule } from '../engine/target.js';
import type { Payment } from './chaos-plan.js';

const REQUEST_TIMEOUT_MS = 15_000;
const MAX_BACKOFF_MS = 1_000;

/** What one client ended with. */
export interface ClientOutcome {
  /** The 201's body, or undefined when the client gave up or got another final answer. */
  readonly charge: string | undefined;
  readonly last: string;
}

/**
 * The plan's payments, each with a real order of its tenant (created through the gateway, 16 at a time) in place
 * of its planned id: a payment needs an existing order.
 */
export async function createOrders(gatewayUrl: string, planned: readonly Payment[]): Promise<Payment[]> {
  const withOrders: Payment[] = [];
  for (let i = 0; i < planned.length; i += 16) {
    const batch = planned.slice(i, i + 16).map(async (payment) => {
      const res = await fetch(`${gatewayUrl}/v1/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${DEMO_TENANTS[payment.tenant].token}`,
          'content-type': 'application/json',
          'idempotency-key': `order-${payment.key}`,
        },
        body: JSON.stringify(fixtureOrderBody(payment.currency)),
      });
      const text = await res.text();
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      return { ...payment, orderId: createdOrderId({ status: res.status, text, body }) };
    });
    withOrders.push(...(await Promise.all(batch)));
  }
  return withOrders;
}

/** One attempt of `payment` at the gateway, with its key, as a client sends it. */
export function payOnce(gatewayUrl: string, payment: Payment): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/orders/${payment.orderId}/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${DEMO_TENANTS[payment.tenant].token}`,
      'content-type': 'application/json',
      'idempotency-key': payment.key,
    },
    body: JSON.stringify({ amount: payment.amount, currency: payment.currency }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

/** How {@link payUntilFinal} retries. */
export interface RetryPolicy {
  /** How long the client retries before it gives up. */
  readonly timeoutMs: number;
  /** Jitter of the backoff (the run's seeded PRNG). */
  readonly random: () => number;
  readonly aborted: () => boolean;
  /** Called before every attempt (the report counts them). */
  readonly onAttempt: () => void;
}

/**
 * Pays with the same key until a final answer: a 201, or a 4xx other than 409 (which the client must not retry
 * unchanged). Network errors, 409 and 5xx are retried with exponential backoff and jitter, never sooner than
 * `Retry-After`.
 */
export async function payUntilFinal(
  gatewayUrl: string,
  payment: Payment,
  policy: RetryPolicy,
): Promise<ClientOutcome> {
  const deadline = Date.now() + policy.timeoutMs;
  let last = 'no attempt';
  for (let attempt = 1; !policy.aborted(); attempt++) {
    policy.onAttempt();
    let retryAfterMs = 0;
    try {
      const res = await payOnce(gatewayUrl, payment);
      const text = await res.text();
      last = `${res.status} ${text.slice(0, 200)}`;
      if (res.status === 201) return { charge: text, last };
      if (res.status < 500 && res.status !== 409) return { charge: undefined, last };
      retryAfterMs = Number(res.headers.get('retry-after') ?? '0') * 1000;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      last = `network error ${cause?.code ?? (error as Error).message}`;
    }
    if (Date.now() > deadline) break;
    const backoff = Math.min(MAX_BACKOFF_MS, 50 * 2 ** (attempt - 1)) * (0.5 + policy.random() / 2);
    await sleep(Math.min(MAX_BACKOFF_MS, Math.max(backoff, retryAfterMs)));
  }
  return { charge: undefined, last };
}

export async function putFaults(url: string, rules: readonly FaultRule[]): Promise<void> {
  const res = await fetch(`${url}/__faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  if (res.status !== 200) throw new Error(`PUT ${url}/__faults answered ${res.status}: ${await res.text()}`);
}

/** Requests on one route and connections dropped, as one process counted them. */
export interface Counters {
  calls: number;
  drops: number;
}

export async function countersOf(url: string, route: RegExp): Promise<Counters> {
  const res = await fetch(`${url}/__faults`);
  if (res.status !== 200) throw new Error(`GET ${url}/__faults answered ${res.status}`);
  const snapshot = (await res.json()) as {
    rules: Array<{ action: string; fired: number }>;
    requests: Record<string, number>;
  };
  return {
    calls: Object.entries(snapshot.requests)
      .filter(([name]) => route.test(name))
      .reduce((sum, [, count]) => sum + count, 0),
    drops: snapshot.rules.filter((rule) => rule.action === 'drop').reduce((sum, rule) => sum + rule.fired, 0),
  };
}

/** The sum of two counters. */
export function addCounters(a: Counters, b: Counters): Counters {
  return { calls: a.calls + b.calls, drops: a.drops + b.drops };
}
