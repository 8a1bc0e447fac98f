/**
 * Every invoice request against the mail ledger: once the outbox is published and the queue drained (so a
 * delivery still on its way cannot add an email after the count), one email per requested invoice (each order of
 * the plan has an address of its own, so emails are counted per address, whatever key the worker gave them), and
 * none to an address no request used.
 */
import { sleep } from '@retry-safe/testing';
import type { EmailLedger } from '../engine/target.js';
import { pendingInvoiceJobs, unpublishedOutboxRows } from './chaos-database.js';
import type { InvoicesVerdict } from './chaos-report.js';
import type { VerifyContext } from './chaos-verify-context.js';

/**
 * Waits until every requested invoice has an email, no outbox row is unpublished and no invoice job is waiting,
 * running or delayed, or until `drainTimeoutMs` (the checks then count what is missing).
 */
export async function drainInvoices(ctx: VerifyContext): Promise<void> {
  const wanted = requestedInvoices(ctx);
  const deadline = Date.now() + ctx.options.drainTimeoutMs;
  while (!ctx.aborted() && Date.now() < deadline) {
    const sentTo = new Set((await emails(ctx)).emails.map((email) => email.to));
    if (
      wanted.every((invoice) => sentTo.has(invoice.email)) &&
      (await unpublishedOutboxRows(ctx.stack.databaseUrl)) === 0 &&
      (await pendingInvoiceJobs(ctx.stack.redis.url)) === 0
    )
      return;
    await sleep(200);
  }
  ctx.problems.add('invoice', `invoices not drained after ${ctx.options.drainTimeoutMs} ms`);
}

export async function verifyInvoices(ctx: VerifyContext): Promise<InvoicesVerdict> {
  const ledger = await emails(ctx);
  const wanted = requestedInvoices(ctx);
  const asked = ctx.orders.filter(
    (o) => o.invoice !== undefined && ctx.outcomes[o.index]?.orderId !== undefined,
  );
  const verdict: InvoicesVerdict = {
    requested: wanted.length,
    emails: ledger.emails.length,
    lost: asked.length - wanted.length,
    duplicates: 0,
  };
  if (verdict.lost > 0) ctx.problems.add('invoice', `${verdict.lost} invoice request(s) without a 202`);
  const byAddress = new Map<string, EmailLedger['emails']>();
  for (const email of ledger.emails) byAddress.set(email.to, [...(byAddress.get(email.to) ?? []), email]);
  for (const invoice of wanted) {
    const sent = byAddress.get(invoice.email) ?? [];
    byAddress.delete(invoice.email);
    if (sent.length === 0) {
      verdict.lost += 1;
      ctx.problems.add('invoice', `${invoice.email}: no email`);
    }
    verdict.duplicates += Math.max(0, sent.length - 1);
    if (sent.length > 1) ctx.problems.add('invoice', `${invoice.email}: ${sent.length} emails`);
  }
  const stray = [...byAddress.values()].reduce((sum, sent) => sum + sent.length, 0);
  if (stray > 0) ctx.problems.add('invoice', `${stray} email(s) to addresses no invoice request used`);
  verdict.duplicates += stray;
  return verdict;
}

/** The addresses of the invoices the clients got a 202 for. */
function requestedInvoices({ orders, outcomes }: VerifyContext): Array<{ readonly email: string }> {
  return orders.flatMap((order) => {
    const answered = outcomes[order.index]?.invoice?.body !== undefined;
    return order.invoice !== undefined && answered ? [{ email: order.invoice.email }] : [];
  });
}

async function emails(ctx: VerifyContext): Promise<EmailLedger> {
  const res = await fetch(`${ctx.stack.urls.provider}/v1/emails`);
  if (res.status !== 200) throw new Error(`GET provider/v1/emails answered ${res.status}`);
  return (await res.json()) as EmailLedger;
}
