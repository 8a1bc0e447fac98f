/**
 * The chaos run's HTTP: clients that create orders, pay and ask for invoices through the gateway and retry like a
 * careful one would, and the fault counters the report reads.
 */
import { sleep } from '@retry-safe/testing';
import { DEMO_TENANTS } from '../demo-tenants.js';
import type { FaultRule } from '../engine/target.js';
import type { Payment, PlannedOrder, Tenant } from './chaos-plan.js';

const REQUEST_TIMEOUT_MS = 15_000;
const MAX_BACKOFF_MS = 1_000;

/** What one client ended with. */
export interface ClientOutcome {
  /** The success's body (201, or 202 for an invoice), or undefined when the client gave up or got another answer. */
  readonly body: string | undefined;
  readonly last: string;
}

/** One request as a client sends it, every attempt the same. */
interface ClientRequest {
  readonly tenant: Tenant;
  readonly path: string;
  readonly body: unknown;
  /** Absent for an invoice request (orders records one per order and version, whatever the deliveries). */
  readonly key?: string;
}

function post(gatewayUrl: string, request: ClientRequest): Promise<Response> {
  return fetch(`${gatewayUrl}${request.path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${DEMO_TENANTS[request.tenant].token}`,
      'content-type': 'application/json',
      ...(request.key === undefined ? {} : { 'idempotency-key': request.key }),
    },
    body: JSON.stringify(request.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

const orderRequest = (order: PlannedOrder): ClientRequest => ({
  tenant: order.tenant,
  path: '/v1/orders',
  key: order.key,
  body: { amount: order.amount, currency: order.currency },
});

const paymentRequest = (payment: Payment): ClientRequest => ({
  tenant: payment.tenant,
  path: `/v1/orders/${payment.orderId}/payments`,
  key: payment.key,
  body: { amount: payment.amount, currency: payment.currency },
});

/** One attempt of creating `order`, with its key, as a client sends it. */
export function createOrderOnce(gatewayUrl: string, order: PlannedOrder): Promise<Response> {
  return post(gatewayUrl, orderRequest(order));
}

/** One attempt of `payment` at the gateway, with its key, as a client sends it. */
export function payOnce(gatewayUrl: string, payment: Payment): Promise<Response> {
  return post(gatewayUrl, paymentRequest(payment));
}

/** How the clients retry. */
export interface RetryPolicy {
  /** How long a client retries before it gives up. */
  readonly timeoutMs: number;
  /** Jitter of the backoff (the run's seeded PRNG). */
  readonly random: () => number;
  readonly aborted: () => boolean;
  /** Called before every attempt (the report counts them). */
  readonly onAttempt: () => void;
}

/** Creates `order` with the same key until a final answer (see {@link untilFinal}). */
export function createOrderUntilFinal(
  gatewayUrl: string,
  order: PlannedOrder,
  policy: RetryPolicy,
): Promise<ClientOutcome> {
  return untilFinal(gatewayUrl, orderRequest(order), 201, policy);
}

/** Pays with the same key until a final answer (see {@link untilFinal}). */
export function payUntilFinal(
  gatewayUrl: string,
  payment: Payment,
  policy: RetryPolicy,
): Promise<ClientOutcome> {
  return untilFinal(gatewayUrl, paymentRequest(payment), 201, policy);
}

/** Asks for the order's invoice until a 202 (every attempt a new delivery of the same version). */
export function requestInvoiceUntilFinal(
  gatewayUrl: string,
  order: PlannedOrder & { readonly invoice: NonNullable<PlannedOrder['invoice']> },
  orderId: string,
  policy: RetryPolicy,
): Promise<ClientOutcome> {
  const request = { tenant: order.tenant, path: `/v1/orders/${orderId}/invoices`, body: order.invoice };
  return untilFinal(gatewayUrl, request, 202, policy);
}

/**
 * Sends `request` until a final answer: `success`, or a 4xx other than 409 (which the client must not retry
 * unchanged). Network errors, 409 and 5xx are retried with exponential backoff and jitter, never sooner than
 * `Retry-After`.
 */
async function untilFinal(
  gatewayUrl: string,
  request: ClientRequest,
  success: number,
  policy: RetryPolicy,
): Promise<ClientOutcome> {
  const deadline = Date.now() + policy.timeoutMs;
  let last = 'no attempt';
  for (let attempt = 1; !policy.aborted(); attempt++) {
    policy.onAttempt();
    let retryAfterMs = 0;
    try {
      const res = await post(gatewayUrl, request);
      const text = await res.text();
      last = `${res.status} ${text.slice(0, 200)}`;
      if (res.status === success) return { body: text, last };
      if (res.status < 500 && res.status !== 409) return { body: undefined, last };
      retryAfterMs = Number(res.headers.get('retry-after') ?? '0') * 1000;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      last = `network error ${cause?.code ?? (error as Error).message}`;
    }
    if (Date.now() > deadline) break;
    const backoff = Math.min(MAX_BACKOFF_MS, 50 * 2 ** (attempt - 1)) * (0.5 + policy.random() / 2);
    await sleep(Math.min(MAX_BACKOFF_MS, Math.max(backoff, retryAfterMs)));
  }
  return { body: undefined, last };
}

export async function putFaults(url: string, rules: readonly FaultRule[]): Promise<void> {
  const res = await fetch(`${url}/__faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  if (res.status !== 200) throw new Error(`PUT ${url}/__faults answered ${res.status}: ${await res.text()}`);
}

/** Requests on the run's routes and connections dropped, as one process counted them. */
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
