/**
 * chain: gateway -> orders -> payments -> provider, with two answers lost after their handlers ran: payments' once
 * (orders retries it) and orders' once (the gateway retries it). Every design sees the same traffic, 2 requests at
 * orders and 3 at payments; what differs is how many of them charge.
 *
 * "No coordinator" runs with provider dedup off, where it would otherwise hide the duplicates; fresh keys defeat
 * provider dedup anyway (each attempt has its own provider key).
 */
import type { HttpResult } from '../engine/http.js';
import { defineScenario, type StepContext } from '../engine/scenario.js';
import type { ChargeLedger, FaultRule } from '../engine/target.js';

/**
 * The fault rule that loses a hop's answer to a payment once, after its handler ran (the caller retries): payments'
 * answer to orders, orders' answer to the gateway.
 */
export const LOSE_ANSWER_ONCE = {
  payments: { method: 'POST', path: '/v1/payments', at: 'after-handler', action: 'drop', times: 1 },
  orders: { method: 'POST', path: '/v1/orders/*/payments', at: 'after-handler', action: 'drop', times: 1 },
} as const satisfies Record<string, FaultRule>;

/** What one row measured. */
export interface ChainData {
  readonly res: HttpResult;
  readonly ordersRequests: number;
  readonly paymentsRequests: number;
  /** How often each drop rule fired. */
  readonly ordersDropped: number;
  readonly paymentsDropped: number;
  readonly ledger: ChargeLedger;
}

/** The settings of one design (`PUT /__config` bodies). */
interface Design {
  readonly gateway?: Record<string, unknown>;
  readonly payments?: Record<string, unknown>;
  readonly provider?: Record<string, unknown>;
}

function chainRow(design: string, settings: Design, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`settings ${JSON.stringify(settings)}`);
      if (settings.gateway) await ctx.target.configure('gateway', settings.gateway);
      if (settings.payments) await ctx.target.configure('payments', settings.payments);
      if (settings.provider) await ctx.target.configure('provider', settings.provider);
      ctx.step("drop payments' answer once and orders' answer once");
      await ctx.target.setFaults('payments', [LOSE_ANSWER_ONCE.payments]);
      await ctx.target.setFaults('orders', [LOSE_ANSWER_ONCE.orders]);
      ctx.step('one payment through the gateway');
      const res = await ctx.pay({ amount: 4200, currency: 'USD' });
      const [orders, payments] = [await ctx.target.faults('orders'), await ctx.target.faults('payments')];
      const ledger = await ctx.target.charges();
      const data: ChainData = {
        res,
        ordersRequests: orders.requests['POST /v1/orders/:orderId/payments'] ?? 0,
        paymentsRequests: payments.requests['POST /v1/payments'] ?? 0,
        ordersDropped: orders.rules[0]?.fired ?? 0,
        paymentsDropped: payments.rules[0]?.fired ?? 0,
        ledger,
      };
      return {
        cells: [`${data.ordersRequests} / ${data.paymentsRequests}`, String(ledger.charges.length)],
        data,
      };
    },
  };
}

export const chainScenario = defineScenario<ChainData>({
  name: 'chain',
  title: "gateway -> orders -> payments -> provider; payments' answer and orders' answer are each lost once",
  lesson:
    'Every hop retries, so one client payment reaches payments 3 times. Only one identity per payment, the ' +
    "client's key sent unchanged on every attempt of every hop, makes those 3 calls 1 charge.",
  columns: ['design', 'calls to orders / payments', 'provider charges'],
  rows: [
    chainRow('no coordinator', { payments: { enabled: false }, provider: { dedup: 'off' } }, ['2 / 3', '3']),
    chainRow('fresh key per retry', { gateway: { keyMode: 'regenerate' } }, ['2 / 3', '2']),
    chainRow('key propagated', {}, ['2 / 3', '1']),
  ],
});
