/**
 * provider: the provider charged, but its answer was lost on the way back to payments. The coordinated action
 * failed, so the reservation is released and orders' retry runs it again: a second call to the provider, with the
 * same provider key. Whether that charges again is up to the provider.
 */
import type { HttpResult } from '../engine/http.js';
import { defineScenario, type StepContext } from '../engine/scenario.js';
import type { ChargeLedger } from '../engine/target.js';

/** What one row measured. */
export interface ProviderData {
  readonly res: HttpResult;
  readonly ledger: ChargeLedger;
}

function providerRow(design: string, dedup: 'on' | 'off', expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`provider dedup ${dedup}; the provider drops its answer once, after charging`);
      await ctx.target.configure('provider', { dedup });
      await ctx.target.setFaults('provider', [
        { method: 'POST', path: '/v1/charges', at: 'after-handler', action: 'drop', times: 1 },
      ]);
      ctx.step('one payment through the gateway');
      const res = await ctx.pay({ amount: 3100, currency: 'EUR' });
      const ledger = await ctx.target.charges();
      return { cells: [String(ledger.calls), String(ledger.charges.length)], data: { res, ledger } };
    },
  };
}

export const providerScenario = defineScenario<ProviderData>({
  name: 'provider',
  title: 'The provider charged, but its answer was lost; the retry calls it again',
  lesson:
    'The coordinator cannot know whether a failed action had its effect. The provider can: give it a key that ' +
    'stays the same across retries (`payment.charge.<tenant>.<client key>`) and it answers the retry with the ' +
    'charge it already made.',
  columns: ['provider behaviour', 'provider calls', 'charges'],
  rows: [
    providerRow('no dedup', 'off', ['2', '2']),
    providerRow('dedup by the provider key', 'on', ['2', '1']),
  ],
});
