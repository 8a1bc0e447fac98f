/**
 * outbox: an invoice is requested through the gateway and orders is killed (SIGKILL at
 * `orders/after-invoice-commit`) once the request has committed, before the job is on the queue. The client does
 * not retry (its answer was a 502; the request is in orders' database either way): what reaches the mail provider
 * is up to orders. The provider sends on every call here (dedup off): a duplicate would show.
 *
 * "publish after commit" is a demonstration mode (`PUT /__config {"invoicePublish": "publish-after-commit"}` on
 * orders, started with FAULTS_ENABLED=true): the request commits alone, then the job is added to the queue.
 *
 * When is a lost delivery known to be lost? After the restart the row requests an invoice of another order and
 * waits for it to be published and sent: the relay publishes the outbox oldest first, so by then the killed
 * request is published if it ever will be (the stack runs one orders process).
 */
import { sleep, waitFor } from '@retry-safe/testing';
import { armKill, bringBack } from '../engine/crash.js';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, describeAnswer, type StepContext } from '../engine/scenario.js';
import type { EmailLedger } from '../engine/target.js';

/** The fault point of this scenario. */
export const AFTER_INVOICE_COMMIT = 'orders/after-invoice-commit';

/** What one row measured. */
export interface OutboxData {
  readonly orderId: string;
  /** The gateway's answer to the request orders died in. */
  readonly lost: HttpResult;
  /** The killed request's invoice as `GET /v1/orders/{orderId}` shows it once the later one is published. */
  readonly status: string;
  /** The mail provider's emails for the killed request's order. */
  readonly emails: EmailLedger['emails'];
  /** The invoice requested after the restart (another order): published and sent in every design. */
  readonly later: { readonly orderId: string; readonly res: HttpResult; readonly emails: number };
}

/** The status of `orderId`'s invoice version 1 (`requested`, `published`, or `none`). */
async function invoiceStatus(ctx: StepContext, orderId: string): Promise<string> {
  const read = await ctx.readOrder(orderId);
  if (read.status !== 200) throw new Error(`GET /v1/orders/${orderId} answered ${read.status}: ${read.text}`);
  const invoices = read.body.invoices as Array<{ version: number; status: string }>;
  return invoices.find((invoice) => invoice.version === 1)?.status ?? 'none';
}

/**
 * How long the first invoice may stay unpublished after the later one was: the killed process' relay can have
 * claimed its row in the moment between the commit and the kill, and a restarted relay takes a claimed row over
 * only when that claim's lease (orders' `OUTBOX_LEASE_MS`, 5 s by default) is over, so after the later row.
 */
const CLAIM_TAKEOVER_MS = 7_000;

/** The first invoice's status once it is published, or as it still is when a dead relay's claim would be over. */
async function settledStatus(ctx: StepContext, orderId: string): Promise<string> {
  const deadline = Date.now() + CLAIM_TAKEOVER_MS;
  for (;;) {
    const status = await invoiceStatus(ctx, orderId);
    if (status === 'published' || Date.now() > deadline) return status;
    await sleep(100);
  }
}

/** The emails sent for `orderId` (its provider keys name the order). */
async function emailsOf(ctx: StepContext, orderId: string): Promise<EmailLedger['emails']> {
  const hex = orderId.replaceAll('-', '');
  return (await ctx.target.emails()).emails.filter((email) => email.idempotencyKey.includes(hex));
}

/** Resolves once `orderId` has `count` emails, and returns them. */
function emailsArrived(ctx: StepContext, orderId: string, count: number): Promise<EmailLedger['emails']> {
  return waitFor(
    `${count} email(s) for order ${orderId}`,
    async () => {
      const emails = await emailsOf(ctx, orderId);
      if (emails.length < count) throw new Error(`${emails.length} so far`);
      return emails;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
}

function outboxRow(design: string, settings: Record<string, unknown>, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`orders settings ${JSON.stringify(settings)}, provider dedup off`);
      await ctx.target.configure('orders', settings);
      await ctx.target.configure('provider', { dedup: 'off' });
      const orderId = await ctx.newOrder();
      const laterOrderId = await ctx.newOrder();
      await armKill(ctx, 'orders', AFTER_INVOICE_COMMIT);
      ctx.step('an invoice through the gateway; orders dies after the commit');
      const lost = await ctx.requestInvoice(orderId, { version: 1, email: 'ada@example.com' });
      await bringBack(ctx, 'orders', AFTER_INVOICE_COMMIT, settings);
      ctx.step(
        "another order's invoice, after the restart: once it is published, the first one's fate is known",
      );
      const res = await ctx.requestInvoice(laterOrderId, { version: 1, email: 'grace@example.com' });
      if (res.status !== 202) throw new Error(`the gateway answered ${res.status}: ${res.text}`);
      await waitFor(
        'the later invoice published',
        async () => {
          const later = await invoiceStatus(ctx, laterOrderId);
          if (later !== 'published') throw new Error(`it is ${later}`);
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const status = await settledStatus(ctx, orderId);
      const laterEmails = await emailsArrived(ctx, laterOrderId, 1);
      const emails =
        status === 'published' ? await emailsArrived(ctx, orderId, 1) : await emailsOf(ctx, orderId);
      return {
        cells: [describeAnswer(lost), status, String(emails.length)],
        data: {
          orderId,
          lost,
          status,
          emails,
          later: { orderId: laterOrderId, res, emails: laterEmails.length },
        },
      };
    },
  };
}

export const outboxScenario = defineScenario<OutboxData>({
  name: 'outbox',
  title: 'Orders is killed after an invoice request committed, before the job is on the queue',
  lesson:
    'A message published because of a change must not be lost when the process dies between the two. Published ' +
    'after the commit, the request is in the database and its job is nowhere: no email, ever. With an outbox the ' +
    'delivery commits with the request, and the relay publishes it after the restart: one email.',
  columns: ['publish', 'the request got', 'invoice in the database', 'emails'],
  needs: { worker: true, restart: true },
  rows: [
    outboxRow('after commit, no outbox', { invoicePublish: 'publish-after-commit' }, [
      '502 upstream_unavailable',
      'requested',
      '0',
    ]),
    outboxRow('outbox', {}, ['502 upstream_unavailable', 'published', '1']),
  ],
});
