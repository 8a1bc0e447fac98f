/**
 * The chaos run's traffic: each order from its clients, `concurrency` orders at a time. An order is created (by two
 * clients at once for some), then paid (its payments at once, each with its own key, some by two clients at
 * once), then, for some, its invoice is requested; every request is retried until a final answer.
 */
import {
  createOrderUntilFinal,
  payUntilFinal,
  requestInvoiceUntilFinal,
  type ClientOutcome,
  type RetryPolicy,
} from './chaos-http.js';
import type { Payment, PlannedOrder } from './chaos-plan.js';
import type { ServiceKiller } from './service-killer.js';

/** What the clients of one order ended with. */
export interface OrderOutcome {
  /** One per client of its creation. */
  readonly created: readonly ClientOutcome[];
  /** The id orders minted (from the first 201), undefined when no client got one. */
  readonly orderId: string | undefined;
  /** Per planned payment, one per client; empty when the order was not created. */
  readonly payments: readonly (readonly ClientOutcome[])[];
  /** The invoice request's answer, when the order asks for one and was created. */
  readonly invoice: ClientOutcome | undefined;
}

/** {@link RetryPolicy} that counts the attempts. */
export type CountingPolicy = Omit<RetryPolicy, 'onAttempt'> & { attempts: number };

/** The {@link RetryPolicy} of `policy`, counting every attempt into `policy.attempts`. */
export function countingRetry(policy: CountingPolicy): RetryPolicy {
  return { ...policy, onAttempt: () => (policy.attempts += 1) };
}

/** The planned payments of `order` as the clients send them, on the order orders created. */
export function paymentsOf(order: PlannedOrder, orderId: string): Payment[] {
  return order.payments.map((payment) => ({
    ...payment,
    tenant: order.tenant,
    orderId,
    currency: order.currency,
  }));
}

/** Every order from its clients, `concurrency` at a time, held back where a kill is due. */
export async function sendTraffic(
  gatewayUrl: string,
  orders: readonly PlannedOrder[],
  killer: ServiceKiller,
  concurrency: number,
  policy: CountingPolicy,
  log: (line: string) => void,
): Promise<OrderOutcome[]> {
  const retry = countingRetry(policy);
  const outcomes: OrderOutcome[] = new Array(orders.length);
  const progressStep = Math.max(1, Math.floor(orders.length / 10));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!policy.aborted()) {
      if (next >= orders.length) return;
      if (killer.blocks(next)) {
        await killer.nextKill();
        continue;
      }
      const order = orders[next++] as PlannedOrder;
      killer.onStarted();
      outcomes[order.index] = await runOrder(gatewayUrl, order, retry);
      killer.onAnswered();
      if (killer.answered % progressStep === 0) log(`  ${killer.answered}/${orders.length} orders answered`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return outcomes;
}

/** One order: created, paid, and its invoice requested. */
export async function runOrder(
  gatewayUrl: string,
  order: PlannedOrder,
  retry: RetryPolicy,
): Promise<OrderOutcome> {
  const clients = <T>(count: number, send: () => Promise<T>): Promise<T[]> =>
    Promise.all(Array.from({ length: count }, send));
  const created = await clients(order.clients, () => createOrderUntilFinal(gatewayUrl, order, retry));
  const orderId = createdId(created);
  if (orderId === undefined) return { created, orderId, payments: [], invoice: undefined };
  const payments = await Promise.all(
    paymentsOf(order, orderId).map((payment) =>
      clients(payment.clients, () => payUntilFinal(gatewayUrl, payment, retry)),
    ),
  );
  const invoice =
    order.invoice === undefined
      ? undefined
      : await requestInvoiceUntilFinal(gatewayUrl, { ...order, invoice: order.invoice }, orderId, retry);
  return { created, orderId, payments, invoice };
}

/** The order id of the first 201 among the clients' answers. */
function createdId(created: readonly ClientOutcome[]): string | undefined {
  const body = created.find((outcome) => outcome.body !== undefined)?.body;
  if (body === undefined) return undefined;
  const id = (JSON.parse(body) as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}
