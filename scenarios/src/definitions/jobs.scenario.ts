/**
 * jobs: the worker sent the invoice and saved its receipt, then the acknowledgement failed (a `status` fault at the
 * `invoices/before-ack` point), so BullMQ delivers the job again. The provider sends on every call here
 * (dedup off): one email is the worker's coordinator at work.
 */
import { waitFor } from '@retry-safe/testing';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, type StepContext } from '../engine/scenario.js';
import type { DeliveryEntry, EmailLedger } from '../engine/target.js';

/** What one row measured. */
export interface JobsData {
  /** The gateway's answer (202 `{deliveryId}`). */
  readonly accepted: HttpResult;
  /** The worker's deliveries of the job, in order. */
  readonly deliveries: readonly DeliveryEntry[];
  readonly emails: EmailLedger;
}

/** The rule that makes the first acknowledgement fail after the receipt was saved. */
export const ACK_FAILS_ONCE = {
  method: 'JOB',
  path: 'invoices/before-ack',
  at: 'after-handler',
  action: 'status',
  status: 500,
  code: 'ack_failed',
  times: 1,
} as const;

function jobsRow(design: string, coordinator: boolean, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`worker coordinator ${coordinator ? 'on' : 'off'}, provider dedup off; the first ack fails`);
      await ctx.target.configure('worker', { enabled: coordinator });
      await ctx.target.configure('provider', { dedup: 'off' });
      await ctx.target.setFaults('worker', [ACK_FAILS_ONCE]);
      ctx.step('one invoice through the gateway');
      const accepted = await ctx.requestInvoice(await ctx.newOrder(), {
        version: 1,
        email: 'ada@example.com',
      });
      if (accepted.status !== 202)
        throw new Error(`the gateway answered ${accepted.status}: ${accepted.text}`);
      const deliveryId = accepted.body.deliveryId as string;
      ctx.step('waiting for the job to be acknowledged');
      const deliveries = await waitFor(
        'the job to be acknowledged',
        async () => {
          const mine = (await ctx.target.journal('worker')).filter(
            (entry): entry is DeliveryEntry => entry.service === 'worker' && entry.requestId === deliveryId,
          );
          if (!mine.some((entry) => entry.status === 'completed')) {
            throw new Error(`${mine.length} deliveries, none acknowledged yet`);
          }
          return mine.sort((a, b) => a.attempt - b.attempt);
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const emails = await ctx.target.emails();
      const acks = deliveries.filter((entry) => entry.status === 'completed').length;
      return {
        cells: [String(deliveries.length), String(emails.emails.length), String(acks)],
        data: { accepted, deliveries, emails },
      };
    },
  };
}

export const jobsScenario = defineScenario<JobsData>({
  name: 'jobs',
  title: 'The worker sent the invoice, then its acknowledgement failed: the queue delivers the job again',
  lesson:
    'A queue delivers at least once. With the invoice version as the key (not the delivery), the redelivery ' +
    'replays the stored receipt instead of sending a second email.',
  columns: ['design', 'deliveries', 'emails', 'acknowledgements'],
  needs: { worker: true },
  rows: [jobsRow('unprotected', false, ['2', '2', '1']), jobsRow('protected', true, ['2', '1', '1'])],
});
