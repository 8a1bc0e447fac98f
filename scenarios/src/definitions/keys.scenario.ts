/**
 * keys: a second request with the same key arrives while the first is held inside the provider call. What payments
 * does with it is its in-flight mode (`IDEMPOTENCY_IN_FLIGHT`, switched live with `PUT /__config`).
 *
 * The `run` row turns provider dedup off: with it on, the provider would hide the duplicate the mode causes.
 */
import type { HttpResult } from '../engine/http.js';
import { defineScenario, describeAnswer, type StepContext } from '../engine/scenario.js';
import type { ChargeLedger } from '../engine/target.js';

/** What one row measured. */
export interface KeysData {
  readonly first: HttpResult;
  readonly second: HttpResult;
  readonly ledger: ChargeLedger;
  /** Requests that reached payments' `POST /v1/payments`. */
  readonly paymentsRequests: number;
}

/** What the second request got, in words, judged against the first. */
export function secondGot(first: HttpResult, second: HttpResult): string {
  if (second.status !== 201) return describeAnswer(second);
  if (second.headers['idempotent-replayed'] === 'true') {
    return second.text === first.text ? "201, the first's Charge (replayed)" : '201, replayed (other bytes!)';
  }
  return second.body?.id === first.body?.id
    ? '201, the same Charge (not marked replayed!)'
    : '201, a second Charge';
}

function inFlightRow(
  mode: 'run' | 'wait' | 'raise',
  providerDedup: 'on' | 'off',
  expected: readonly string[],
) {
  return {
    design: mode,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`payments in-flight mode ${mode}, provider dedup ${providerDedup}`);
      await ctx.target.configure('payments', { inFlight: mode });
      await ctx.target.configure('provider', { dedup: providerDedup });
      const { key, orderId, answer: first } = await ctx.payHeld('keys');
      ctx.step('second payment, same key, while the first is held');
      const second = await ctx.pay({ key, orderId });
      const firstAnswer = await first;
      const ledger = await ctx.target.charges();
      const paymentsRequests = (await ctx.target.faults('payments')).requests['POST /v1/payments'] ?? 0;
      return {
        cells: [secondGot(firstAnswer, second), String(ledger.charges.length)],
        data: { first: firstAnswer, second, ledger, paymentsRequests },
      };
    },
  };
}

export const keysScenario = defineScenario<KeysData>({
  name: 'keys',
  title: 'A second request with the same key arrives while the first is inside the provider call',
  lesson:
    '`run` charges twice; `wait` and `raise` charge once. `wait` answers the duplicate with the stored Charge, ' +
    '`raise` with 409 and `Retry-After: 1` (the client retries and then gets the replay).',
  columns: ['in-flight mode', 'the 2nd request got', 'provider charges'],
  rows: [
    inFlightRow('run', 'off', ['201, a second Charge', '2']),
    inFlightRow('wait', 'on', ["201, the first's Charge (replayed)", '1']),
    inFlightRow('raise', 'on', ['409 payment_in_progress', '1']),
  ],
});
