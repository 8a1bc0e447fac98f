/**
 * What a chaos run decides before it starts: the payments (from a seeded PRNG, so a seed reproduces them) and the
 * fault rules of every hop.
 */
import type { DEMO_TENANTS } from '../demo-tenants.js';
import type { FaultRule } from '../engine/target.js';
import type { ServiceName } from '../stack/stack.js';
import type { ResolvedChaosOptions } from './chaos-report.js';

/** One payment the clients make (twice at once when `clients` is 2). */
export interface Payment {
  readonly index: number;
  readonly tenant: keyof typeof DEMO_TENANTS;
  readonly key: string;
  readonly orderId: string;
  readonly amount: number;
  readonly currency: string;
  readonly clients: 1 | 2;
}

/** The services that carry payments and have fault rules. */
export type ChaosService = Exclude<ServiceName, 'worker'>;

/** The hops that drop connections (provider-sim loses responses instead). */
export const HOPS = ['gateway', 'orders', 'payments'] as const;

/** The payment route of each service, as `GET /__faults` counts it. */
export const ROUTES: Record<ChaosService, RegExp> = {
  // A request a `before-handler` fault dropped never reached a route and is counted under its raw path.
  gateway: /^POST \/v1\/orders\/[^/]+\/payments$/,
  orders: /^POST \/v1\/orders\/[^/]+\/payments$/,
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

/** A version-4 UUID from the PRNG, so a seed reproduces the order ids too. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Math.floor(random() * 4) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** The run's payments, alternating the two demo tenants; `random` decides amounts and which are sent twice. */
export function planPayments(options: ResolvedChaosOptions, random: () => number): Payment[] {
  return Array.from({ length: options.payments }, (_, index) => ({
    index,
    tenant: index % 2 === 0 ? 'a' : 'b',
    key: `chaos-${options.seed}-${index}`,
    orderId: uuidFrom(random),
    amount: 100 + Math.floor(random() * 99_900),
    currency: CURRENCIES[Math.floor(random() * CURRENCIES.length)] ?? 'EUR',
    clients: random() < options.sentTwiceShare ? 2 : 1,
  }));
}

/** The drop rules of one hop: before or after the handler, so that together a request is dropped with `p`. */
function hopRules(method: string, path: string, p: number): FaultRule[] {
  const before = p / 2;
  // P(dropped) = before + (1 - before) * after = p.
  const after = before >= 1 ? 0 : (p - before) / (1 - before);
  return [
    { method, path, at: 'before-handler', action: 'drop', probability: before },
    { method, path, at: 'after-handler', action: 'drop', probability: after },
  ];
}

/** The fault rules of every service: drops at each hop, responses lost after the provider charged. */
export function chaosFaultRules(options: ResolvedChaosOptions): Record<ChaosService, FaultRule[]> {
  return {
    gateway: hopRules('POST', '/v1/orders/*/payments', options.dropProbability),
    orders: hopRules('POST', '/v1/orders/*/payments', options.dropProbability),
    payments: hopRules('POST', '/v1/payments', options.dropProbability),
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
