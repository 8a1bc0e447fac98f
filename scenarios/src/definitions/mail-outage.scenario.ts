/**
 * mail-outage: the mail provider answers 503 to every send for a while (a `status` fault on `POST /v1/emails`)
 * while 10 invoices are requested, then recovers. BullMQ's own retries (the producer's 5 attempts, exponential from
 * 1 s: spent in about 15 s) against the worker's retry horizon (capped full-jitter backoff for 24 h, attempts
 * unused). The provider sends on every call here (dedup off): a duplicate would be the worker's.
 *
 * "BullMQ default retries" is a demonstration mode (`PUT /__config {"retryMode": "bullmq-attempts"}` on a worker
 * started with FAULTS_ENABLED=true), never a setting of its own.
 */
import { metricValue, sleep, waitFor } from '@retry-safe/testing';
import { defineScenario, type StepContext } from '../engine/scenario.js';
import type { EmailLedger } from '../engine/target.js';

/** What one row measured. */
export interface MailOutageData {
  /** Deliveries the gateway accepted (202 `{deliveryId}`). */
  readonly accepted: number;
  /** Jobs that failed for good (the worker's `invoice_jobs_total{outcome="failed"}`, this row only). */
  readonly failed: number;
  readonly emails: EmailLedger;
  /** Epoch ms the fault rule was removed. */
  readonly recoveredAt: number;
}

/** Options of {@link mailOutageScenario}. */
export interface MailOutageOptions {
  /** How long the provider is down. @default 30000 (longer than BullMQ's 5 attempts from 1 s) */
  readonly outageMs?: number;
  /** How long to wait after recovery for the jobs to settle. @default 120000 (two default backoff caps) */
  readonly settleMs?: number;
}

/** Invoices requested during the outage. */
export const OUTAGE_INVOICES = 10;

/** The outage: every send answers 503 until the rule is removed. */
export const MAIL_OUTAGE = {
  method: 'POST',
  path: '/v1/emails',
  at: 'before-handler',
  action: 'status',
  status: 503,
  code: 'mail_outage',
} as const;

/** Jobs the worker failed for good so far (`invoice_jobs_total{outcome="failed"}`). */
function failedJobs(ctx: StepContext): Promise<number> {
  return metricValue(ctx.target.urls.worker ?? '', 'invoice_jobs_total', { outcome: 'failed' });
}

function outageRow(
  design: string,
  retryMode: string,
  expected: readonly string[],
  options: MailOutageOptions,
) {
  const outageMs = options.outageMs ?? 30_000;
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`worker retries: ${retryMode}; provider dedup off; the provider is down for ${outageMs} ms`);
      await ctx.target.configure('worker', { retryMode });
      await ctx.target.configure('provider', { dedup: 'off' });
      const failedBefore = await failedJobs(ctx);
      // One order per invoice, created before the outage begins (set-up: a request needs an existing order).
      const orders: string[] = [];
      for (let i = 0; i < OUTAGE_INVOICES; i++) orders.push(await ctx.newOrder());
      await ctx.target.setFaults('provider', [MAIL_OUTAGE]);
      ctx.note('mail provider down');
      ctx.step(`${OUTAGE_INVOICES} invoices through the gateway`);
      let accepted = 0;
      for (let i = 0; i < OUTAGE_INVOICES; i++) {
        const orderId = orders[i] as string;
        const res = await ctx.requestInvoice(orderId, { version: 1, email: `client-${i}@example.com` });
        if (res.status !== 202) throw new Error(`the gateway answered ${res.status}: ${res.text}`);
        accepted += 1;
      }
      await sleep(outageMs);
      // Read before the rule goes: no email can be sent before, so every one after counts as after recovery.
      const recoveredAt = Date.now();
      await ctx.target.setFaults('provider', []);
      ctx.note('mail provider back');
      ctx.step('provider back; waiting for every job to be sent or failed');
      const settled = await waitFor(
        'every invoice sent or failed',
        async () => {
          const emails = await ctx.target.emails();
          const failed = (await failedJobs(ctx)) - failedBefore;
          const sent = new Set(emails.emails.map((email) => email.idempotencyKey)).size;
          if (sent + failed < accepted) throw new Error(`${sent} sent, ${failed} failed of ${accepted}`);
          return { emails, failed };
        },
        { timeoutMs: options.settleMs ?? 120_000, intervalMs: 200 },
      );
      const { emails, failed } = settled;
      const afterRecovery = emails.emails.filter((email) => Date.parse(email.createdAt) >= recoveredAt);
      const duplicates = emails.emails.length - new Set(emails.emails.map((e) => e.idempotencyKey)).size;
      return {
        cells: [String(failed), String(afterRecovery.length), String(duplicates)],
        data: { accepted, failed, emails, recoveredAt },
      };
    },
  };
}

/** The scenario, with its outage shortened (tests) or not (`pnpm demo`: 30 s). */
export function mailOutageScenario(options: MailOutageOptions = {}) {
  return defineScenario<MailOutageData>({
    name: 'mail-outage',
    title: 'The mail provider is down for a while as 10 invoices are requested, then comes back',
    lesson:
      'A retry count is a time limit in disguise: 5 attempts from 1 s are spent in 15 s, and an outage longer ' +
      'than that leaves every job failed for good. Retrying transient failures for a horizon (capped backoff ' +
      'with full jitter, 24 h) sends every invoice once the provider is back, each once.',
    columns: ['retries', 'failed jobs', 'emails after recovery', 'duplicates'],
    needs: { worker: true },
    rows: [
      outageRow('BullMQ default retries', 'bullmq-attempts', ['10', '0', '0'], options),
      outageRow('retry horizon', 'horizon', ['0', '10', '0'], options),
    ],
  });
}

/** `pnpm demo`'s mail-outage: a 30 s outage. */
export const mailOutageScenario30s = mailOutageScenario();
