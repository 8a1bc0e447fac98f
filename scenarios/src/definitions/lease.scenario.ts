/**
 * lease: the first request's action outlives its 1 s lease (the provider holds the charge 2.5 s); a duplicate
 * arrives after the lease ran out. Provider dedup off: every execution is a charge.
 */
import { sleep } from '@retry-safe/testing';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, describeAnswer, type StepContext } from '../engine/scenario.js';
import type { ChargeLedger } from '../engine/target.js';

/** The lease of this scenario, short against the provider's hold. */
export const SHORT_LEASE_MS = 1_000;

/** What one row measured. */
export interface LeaseData {
  readonly first: HttpResult;
  readonly second: HttpResult;
  readonly ledger: ChargeLedger;
}

function leaseRow(renewLease: boolean, expected: readonly string[]) {
  return {
    design: renewLease ? 'on' : 'off',
    expected,
    async run(ctx: StepContext) {
      ctx.step(`lease ${SHORT_LEASE_MS} ms, renewal ${renewLease ? 'on' : 'off'}, provider dedup off`);
      await ctx.target.configure('payments', { leaseMs: SHORT_LEASE_MS, renewLease, inFlight: 'raise' });
      await ctx.target.configure('provider', { dedup: 'off' });
      const { key, orderId, answer: first } = await ctx.payHeld('lease');
      // The reservation was taken just before the provider call: past this, an unrenewed lease has run out.
      await sleep(SHORT_LEASE_MS + 200);
      ctx.note(`${SHORT_LEASE_MS} ms lease ${renewLease ? 'renewed meanwhile' : 'ran out'}`);
      ctx.step('second payment, same key, after the lease would have run out');
      const second = await ctx.pay({ key, orderId });
      const firstAnswer = await first;
      const ledger = await ctx.target.charges();
      return {
        cells: [describeAnswer(firstAnswer), describeAnswer(second), String(ledger.calls)],
        data: { first: firstAnswer, second, ledger },
      };
    },
  };
}

export const leaseScenario = defineScenario<LeaseData>({
  name: 'lease',
  title: "The first request's action outlives its 1 s lease; a duplicate arrives after it",
  lesson:
    'A lease bounds how long a crashed owner blocks its key, so a slow owner must renew it. Without renewal the ' +
    'duplicate takes over and charges again; the slow owner is then refused its write (fencing): 409 ' +
    '`idempotency_lease_lost`. With renewal the duplicate waits its turn (409 `payment_in_progress`).',
  columns: ['lease renewal', '1st request got', '2nd request got', 'executions'],
  rows: [
    leaseRow(false, ['409 idempotency_lease_lost', '201', '2']),
    leaseRow(true, ['201', '409 payment_in_progress', '1']),
  ],
});
