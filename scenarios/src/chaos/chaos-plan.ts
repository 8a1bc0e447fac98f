/**
 * What a chaos run decides before it starts: the orders, their payments and invoice requests (from a seeded PRNG,
 * so a seed reproduces them), and the fault rules of every hop.
 */
import type { DEMO_TENANTS } from '../demo-tenants.js';
import type { FaultRule } from '../engine/target.js';
import type { ServiceName } from '../stack/stack.js';
import type { ResolvedChaosOptions } from './chaos-report.js';

/** A demo tenant. */
export type Tenant = keyof typeof DEMO_TENANTS;

/** One payment of an order, with its own key (sent by two clients at once when `clients` is 2). */
export interface PlannedPayment {
  /** Its number over the whole run. */
  readonly index: number;
  readonly key: string;
  /** Minor units; the payments of one order sum to at most its amount, but for an overpaying order's last. */
  readonly amount: number;
  readonly clients: 1 | 2;
}

/** One order the run creates, pays (in one to three payments) and maybe asks an invoice for. */
export interface PlannedOrder {
  readonly index: number;
  readonly tenant: Tenant;
  /** The `Idempotency-Key` of its `POST /v1/orders`. */
  readonly key: string;
  readonly amount: number;
  readonly currency: string;
  /** Clients creating it at once with the same key. */
  readonly clients: 1 | 2;
  readonly payments: readonly PlannedPayment[];
  /** Requested once its payments are answered. */
  readonly invoice: { readonly version: number; readonly email: string } | undefined;
}

/** A payment as a client sends it: the planned one, on its order (whose id orders minted). */
export interface Payment extends PlannedPayment {
  readonly tenant: Tenant;
  readonly orderId: string;
  readonly currency: string;
}

/** The services that carry the traffic and have fault rules. */
export type ChaosService = Exclude<ServiceName, 'worker'>;

/** The hops that drop connections (provider-sim loses responses instead). */
export const HOPS = ['gateway', 'orders', 'payments'] as const;

/** The public routes the clients call, as a fault rule's path. */
const PUBLIC_ROUTES = ['/v1/orders', '/v1/orders/*/payments', '/v1/orders/*/invoices'] as const;

/** The routes of each service the run's traffic takes, as `GET /__faults` counts them. */
export const ROUTES: Record<ChaosService, RegExp> = {
  // A request a `before-handler` fault dropped never reached a route and is counted under its raw path.
  gateway: /^POST \/v1\/orders(?:\/[^/]+\/(?:payments|invoices))?$/,
  orders: /^POST \/v1\/orders(?:\/[^/]+\/(?:payments|invoices))?$/,
  payments: /^POST \/v1\/payments$/,
  provider: /^POST \/v1\/charges$/,
};

const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF'] as const;

/** mulberry32: a small seeded PRNG, [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The run's orders, alternating the two demo tenants. `random` decides the amounts, how many payments each takes
 * (one, two or three, summing to the whole amount or less), which requests two clients send at once, and which
 * orders ask for an invoice.
 */
export function planOrders(options: ResolvedChaosOptions, random: () => number): PlannedOrder[] {
  const twice = (): 1 | 2 => (random() < options.sentTwiceShare ? 2 : 1);
  let paymentIndex = 0;
  return Array.from({ length: options.orders }, (_, index): PlannedOrder => {
    const amount = 300 + Math.floor(random() * 99_700);
    const parts = splitAmount(amount, random);
    const key = `chaos-${options.seed}-${index}`;
    return {
      index,
      tenant: index % 2 === 0 ? 'a' : 'b',
      key: `${key}-order`,
      amount,
      currency: CURRENCIES[Math.floor(random() * CURRENCIES.length)] ?? 'EUR',
      clients: twice(),
      // An overpaying order gets one payment more, of its whole amount: some of them must be refused.
      payments: [...parts, ...(random() < options.overpayShare ? [amount] : [])].map((part, n) => ({
        index: paymentIndex++,
        key: `${key}-pay-${n + 1}`,
        amount: part,
        clients: twice(),
      })),
      invoice:
        random() < options.invoiceShare
          ? { version: 1 + Math.floor(random() * 3), email: `chaos-${index}@example.com` }
          : undefined,
    };
  });
}

/**
 * One to three payments (half the orders one, then fewer the more), together the whole amount for half the orders
 * (the order becomes `paid`), less for the others; each at least 1.
 */
function splitAmount(amount: number, random: () => number): number[] {
  const roll = random();
  const count = roll < 0.5 ? 1 : roll < 0.8 ? 2 : 3;
  const total = random() < 0.5 ? amount : Math.max(count, Math.floor(amount * (0.3 + random() * 0.6)));
  const cuts = Array.from({ length: count - 1 }, () => 1 + Math.floor(random() * (total - 1))).sort(
    (a, b) => a - b,
  );
  const bounds = [0, ...new Set(cuts), total];
  return bounds.slice(1).map((end, i) => end - (bounds[i] as number));
}

/** The drop rules of one hop: before or after the handler, so that together a request is dropped with `p`. */
function hopRules(method: string, paths: readonly string[], p: number): FaultRule[] {
  const before = p / 2;
  // P(dropped) = before + (1 - before) * after = p.
  const after = before >= 1 ? 0 : (p - before) / (1 - before);
  return paths.flatMap((path): FaultRule[] => [
    { method, path, at: 'before-handler', action: 'drop', probability: before },
    { method, path, at: 'after-handler', action: 'drop', probability: after },
  ]);
}

/** The fault rules of every service: drops at each hop, responses lost after the provider charged. */
export function chaosFaultRules(options: ResolvedChaosOptions): Record<ChaosService, FaultRule[]> {
  return {
    gateway: hopRules('POST', PUBLIC_ROUTES, options.dropProbability),
    orders: hopRules('POST', PUBLIC_ROUTES, options.dropProbability),
    payments: hopRules('POST', ['/v1/payments'], options.dropProbability),
    provider: [
      {
        method: 'POST',
        path: '/v1/charges',
        at: 'after-handler',
        action: 'drop',
        probability: options.lostResponseProbability,
      },
    ],
  };
}
