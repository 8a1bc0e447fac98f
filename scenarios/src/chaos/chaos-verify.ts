/**
 * After the traffic, with every fault off: every payment against the provider's ledger and replayed once more,
 * every order replayed once more, then (chaos-verify-orders.ts) every order's rows and `paidAmount` against its
 * charges and (chaos-verify-invoices.ts) every invoice against the mail ledger.
 */
import type { ProviderCharge } from '../stack/stack.js';
import { createOrderOnce, payOnce, type ClientOutcome } from './chaos-http.js';
import { HOPS, type Payment } from './chaos-plan.js';
import type { InvoicesVerdict, OrdersVerdict, PaymentsVerdict } from './chaos-report.js';
import { paymentsOf } from './chaos-traffic.js';
import {
  Problems,
  chargesOfPayment,
  eachConcurrently,
  providerKey,
  type SentPayment,
  type VerifyContext,
} from './chaos-verify-context.js';
import { drainInvoices, verifyInvoices } from './chaos-verify-invoices.js';
import { verifyOrders } from './chaos-verify-orders.js';

/** What {@link verify} found (a part of the report). */
export interface Verdict {
  payments: PaymentsVerdict;
  orders: OrdersVerdict;
  invoices: InvoicesVerdict;
  problems: string[];
}

/** Runs every check; the invoices are given `drainTimeoutMs` to be published and sent first. */
export async function verify(
  context: Omit<VerifyContext, 'problems'>,
  log: (line: string) => void,
): Promise<Verdict> {
  const ctx: VerifyContext = { ...context, problems: new Problems() };
  log('verifying: provider ledger and one clean replay per payment and per order');
  for (const service of [...HOPS, 'provider'] as const) await ctx.stack.setFaults(service, []);
  const ledger = await ctx.stack.providerCharges();
  const sent = sentPayments(ctx);
  const payments = await verifyPayments(ctx, sent, ledger.charges);
  const replays = await replayOrders(ctx);
  log('waiting for the invoices: outbox published, queue drained');
  await drainInvoices(ctx);
  log("verifying: orders' rows and paidAmount against the charges, the mail ledger");
  const orders = await verifyOrders(ctx, sent, ledger.charges);
  const invoices = await verifyInvoices(ctx);
  return {
    payments,
    orders: { ...orders, lost: replays.lost, replayMismatches: replays.mismatches },
    invoices,
    problems: ctx.problems.list,
  };
}

/** Every payment the clients sent (those of an order that was created). */
function sentPayments({ orders, outcomes }: VerifyContext): SentPayment[] {
  return orders.flatMap((order) => {
    const outcome = outcomes[order.index];
    if (outcome?.orderId === undefined) return [];
    return paymentsOf(order, outcome.orderId).map((payment, n) => ({
      payment,
      clients: outcome.payments[n] ?? [],
    }));
  });
}

async function verifyPayments(
  ctx: VerifyContext,
  sent: readonly SentPayment[],
  charges: readonly ProviderCharge[],
): Promise<PaymentsVerdict> {
  const chargesOf = chargesOfPayment(charges);
  const verdict: PaymentsVerdict = {
    charges: charges.length,
    duplicates: 0,
    lost: 0,
    replayMismatches: 0,
    strayCharges: 0,
    refused: 0,
  };
  const known = new Set(sent.map(({ payment }) => providerKey(payment)));
  verdict.strayCharges = charges.filter((charge) => !known.has(charge.idempotencyKey)).length;
  if (verdict.strayCharges > 0)
    ctx.problems.add('payment', `${verdict.strayCharges} provider charge(s) under keys no payment used`);
  await eachConcurrently(sent, ctx.aborted, async ({ payment, clients }) => {
    const own = chargesOf(payment);
    verdict.duplicates += Math.max(0, own.length - 1);
    if (ctx.options.providerDedup && own.length > 1)
      ctx.problems.add('payment', `${payment.key}: ${own.length} provider charges`);
    const finding = await checkPayment(ctx, payment, clients, own);
    if (finding === 'lost') verdict.lost += 1;
    if (finding === 'refused') verdict.refused += 1;
    if (finding === 'replay-mismatch') verdict.replayMismatches += 1;
  });
  return verdict;
}

/** What one payment or order creation came to. */
type Finding = 'ok' | 'lost' | 'replay-mismatch' | 'refused';

/** Every client was told, for good, that the payment asks more than the order owes. */
function refusedForGood(clients: readonly ClientOutcome[], expected: number): boolean {
  return (
    clients.length === expected &&
    clients.every(
      (c) => c.body === undefined && c.last.startsWith('422') && c.last.includes('payment_exceeds_balance'),
    )
  );
}

/** Every client got the success, and all of them the same bytes: the first body, else 'lost'. */
function firstOfAll(clients: readonly ClientOutcome[], expected: number): string | 'lost' {
  const first = clients[0]?.body;
  if (first === undefined || clients.length !== expected || clients.some((c) => c.body === undefined))
    return 'lost';
  return first;
}

/** A clean replay answers 201, marked replayed, with the bytes every client got. */
async function sameOnReplay(
  replay: Response,
  clients: readonly ClientOutcome[],
): Promise<string | undefined> {
  const text = await replay.text();
  const same =
    replay.status === 201 &&
    replay.headers.get('idempotent-replayed') === 'true' &&
    clients.every((client) => client.body === text);
  return same ? undefined : `${replay.status} ${text.slice(0, 120)}`;
}

/**
 * One payment: every client got a 201, its Charge names one of the payment's own provider charges, and a replay
 * with the faults off answers the same bytes, marked replayed.
 */
async function checkPayment(
  ctx: VerifyContext,
  payment: Payment,
  clients: readonly ClientOutcome[],
  charges: readonly ProviderCharge[],
): Promise<Finding> {
  const first = firstOfAll(clients, payment.clients);
  // Refused as more than is owed, and never charged: what an order's payments asked beyond its amount.
  if (first === 'lost' && charges.length === 0 && refusedForGood(clients, payment.clients)) return 'refused';
  if (first === 'lost') {
    ctx.problems.add(
      'payment',
      `${payment.key}: no 201 for every client (last: ${clients.map((c) => c.last).join(' | ')})`,
    );
    return 'lost';
  }
  const charge = JSON.parse(first) as { providerChargeId?: string; orderId?: string };
  const own = charges.find((c) => c.id === charge.providerChargeId);
  if (own === undefined || own.amount !== payment.amount || charge.orderId !== payment.orderId) {
    ctx.problems.add(
      'payment',
      `${payment.key}: its Charge names provider charge ${charge.providerChargeId}, not one of its own`,
    );
    return 'lost';
  }
  const differs = await sameOnReplay(await payOnce(ctx.stack.urls.gateway, payment), clients);
  if (differs === undefined) return 'ok';
  ctx.problems.add('payment', `${payment.key}: the 201s differ (replay ${differs})`);
  return 'replay-mismatch';
}

/** Every order: every client got a 201 with the same bytes, and a replay with the faults off answers them again. */
async function replayOrders(ctx: VerifyContext): Promise<{ lost: number; mismatches: number }> {
  const counts = { lost: 0, mismatches: 0 };
  await eachConcurrently(ctx.orders, ctx.aborted, async (order) => {
    const clients = ctx.outcomes[order.index]?.created ?? [];
    if (firstOfAll(clients, order.clients) === 'lost') {
      counts.lost += 1;
      ctx.problems.add(
        'order',
        `${order.key}: no 201 for every client (last: ${clients.map((c) => c.last).join(' | ')})`,
      );
      return;
    }
    const differs = await sameOnReplay(await createOrderOnce(ctx.stack.urls.gateway, order), clients);
    if (differs === undefined) return;
    counts.mismatches += 1;
    ctx.problems.add('order', `${order.key}: the 201s differ (replay ${differs})`);
  });
  return counts;
}
