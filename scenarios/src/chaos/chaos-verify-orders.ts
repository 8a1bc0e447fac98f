/**
 * Every order against its charges: one row per key in `orders`, one `order_payments` row per charged payment
 * (naming the Charge its clients got and that Charge's provider charge, no provider charge in two rows), and
 * `paidAmount` (`GET /v1/orders/{id}`) equal to the sum of its provider charges and of its rows, with the status
 * that goes with it, and neither past the order's amount (its payments were sent at once, some asking more).
 */
import { DEMO_TENANTS } from '../demo-tenants.js';
import type { ProviderCharge } from '../stack/stack.js';
import { readOrdersRows, type AppliedCharge } from './chaos-database.js';
import type { OrdersVerdict } from './chaos-report.js';
import {
  chargesOfPayment,
  eachConcurrently,
  type SentPayment,
  type VerifyContext,
} from './chaos-verify-context.js';

/** The checks of this file (the replay checks fill the rest of {@link OrdersVerdict}). */
export type RowsVerdict = Omit<OrdersVerdict, 'lost' | 'replayMismatches'>;

/** What `GET /v1/orders/{id}` says of an order's money. */
interface OrderMoney {
  readonly amount: number;
  readonly paidAmount: number;
  readonly status: string;
}

export async function verifyOrders(
  ctx: VerifyContext,
  sent: readonly SentPayment[],
  charges: readonly ProviderCharge[],
): Promise<RowsVerdict> {
  const rows = await readOrdersRows(ctx.stack.databaseUrl);
  const created = ctx.outcomes.flatMap((outcome) => (outcome.orderId === undefined ? [] : [outcome.orderId]));
  const known = new Set(created);
  const verdict: RowsVerdict = {
    strayRows: rows.orderIds.filter((id) => !known.has(id)).length,
    paidMismatches: 0,
    appliedTwice: 0,
    notApplied: 0,
    overpaid: 0,
  };
  if (verdict.strayRows > 0)
    ctx.problems.add('order', `${verdict.strayRows} order row(s) beyond one per key`);
  const applied = groupBy(rows.applied, (row) => row.orderId);
  const payments = groupBy(sent, (s) => s.payment.orderId);
  const chargesOf = chargesOfPayment(charges);
  const tenantOf = new Map(
    ctx.orders.flatMap((order) => {
      const id = ctx.outcomes[order.index]?.orderId;
      return id === undefined ? [] : [[id, order.tenant] as const];
    }),
  );
  await eachConcurrently(created, ctx.aborted, async (orderId) => {
    const own = applied.get(orderId) ?? [];
    const paid = payments.get(orderId) ?? [];
    const rowsFound = checkRows(ctx, orderId, own, paid);
    verdict.appliedTwice += rowsFound.appliedTwice;
    verdict.notApplied += rowsFound.notApplied;
    const money = await orderMoney(ctx.stack.urls.gateway, tenantOf.get(orderId) ?? 'a', orderId);
    const charged = paid.reduce((sum, { payment }) => {
      const under = chargesOf(payment);
      // With provider dedup off a duplicate is the provider's doing, not orders': one charge per key is applied.
      const counted = ctx.options.providerDedup ? under : under.slice(0, 1);
      return sum + counted.reduce((s, charge) => s + charge.amount, 0);
    }, 0);
    const inRows = own.reduce((sum, row) => sum + row.amount, 0);
    if (overpaid(ctx, orderId, money, paid, chargesOf)) verdict.overpaid += 1;
    const status = money.paidAmount >= money.amount ? 'paid' : 'awaiting_payment';
    if (money.paidAmount !== charged || money.paidAmount !== inRows || money.status !== status) {
      verdict.paidMismatches += 1;
      ctx.problems.add(
        'applied',
        `order ${orderId}: paidAmount ${money.paidAmount} (${money.status}), provider charges ${charged}, rows ${inRows}`,
      );
    }
  });
  return verdict;
}

/** The order's rows against the Charges its payments' clients got. */
function checkRows(
  ctx: VerifyContext,
  orderId: string,
  rows: readonly AppliedCharge[],
  paid: readonly SentPayment[],
): { appliedTwice: number; notApplied: number } {
  const found = { appliedTwice: 0, notApplied: 0 };
  const matched = new Set<string>();
  for (const { payment, clients } of paid) {
    const body = clients.find((client) => client.body !== undefined)?.body;
    if (body === undefined) continue; // lost: counted by the payment checks
    const charge = JSON.parse(body) as { id?: string; providerChargeId?: string };
    const row = rows.find((r) => r.chargeId === charge.id);
    if (row === undefined) {
      found.notApplied += 1;
      ctx.problems.add(
        'applied',
        `${payment.key}: Charge ${charge.id} answered 201 but is not applied to order ${orderId}`,
      );
      continue;
    }
    matched.add(row.chargeId);
    if (row.providerChargeId !== charge.providerChargeId || row.amount !== payment.amount) {
      // The Charge its clients got is not what was applied.
      found.notApplied += 1;
      ctx.problems.add('applied', `${payment.key}: its row names ${row.providerChargeId} for ${row.amount}`);
    }
  }
  const extra = rows.filter((row) => !matched.has(row.chargeId));
  const providerIds = new Set(rows.map((row) => row.providerChargeId));
  found.appliedTwice = Math.max(extra.length, rows.length - providerIds.size);
  if (found.appliedTwice > 0)
    ctx.problems.add(
      'applied',
      `order ${orderId}: ${rows.length} rows for ${providerIds.size} provider charge(s)`,
    );
  return found;
}

async function orderMoney(
  gatewayUrl: string,
  tenant: keyof typeof DEMO_TENANTS,
  id: string,
): Promise<OrderMoney> {
  const res = await fetch(`${gatewayUrl}/v1/orders/${id}`, {
    headers: { authorization: `Bearer ${DEMO_TENANTS[tenant].token}` },
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`GET /v1/orders/${id} answered ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as OrderMoney;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/**
 * Whether the order was paid, or (provider dedup on) charged under its keys, past its amount: its payments were
 * sent at once, some orders asking more than they owe, and a reservation must have refused the excess.
 */
function overpaid(
  ctx: VerifyContext,
  orderId: string,
  money: OrderMoney,
  paid: readonly SentPayment[],
  chargesOf: (payment: SentPayment['payment']) => readonly ProviderCharge[],
): boolean {
  const charged = paid.reduce(
    (sum, { payment }) => sum + chargesOf(payment).reduce((s, charge) => s + charge.amount, 0),
    0,
  );
  if (money.paidAmount <= money.amount && (!ctx.options.providerDedup || charged <= money.amount))
    return false;
  ctx.problems.add(
    'applied',
    `order ${orderId} of ${money.amount}: paidAmount ${money.paidAmount}, provider charges ${charged}`,
  );
  return true;
}
