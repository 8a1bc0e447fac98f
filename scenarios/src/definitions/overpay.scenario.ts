/**
 * overpay: five tabs pay the whole order at once, each with its own key (five payments, not retries of one). Each
 * charge is held at `orders/after-charge` (payments answered 201, the Charge not applied yet), so every tab has
 * read or reserved before any Charge reaches the order, whatever the machine's speed.
 *
 * "read-then-write" is a demonstration mode (`PUT /__config {"balanceCheck": "read-then-write"}` on orders, started
 * with FAULTS_ENABLED=true): the balance is read and the payment charged when the read said it fits.
 */
import { randomUUID } from 'node:crypto';
import { holdAt } from '../engine/crash.js';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, describeAnswer, type StepContext } from '../engine/scenario.js';

/** The fault point each charge is held at. */
export const AFTER_CHARGE = 'orders/after-charge';

/** The order's amount, and what each tab pays. */
export const OVERPAY_AMOUNT = 5_000;

/** How many tabs pay at once. */
export const OVERPAY_TABS = 5;

/** How long each charge is held before it is applied. */
export const OVERPAY_HOLD_MS = 1_000;

/** What one row measured. */
export interface OverpayData {
  readonly orderId: string;
  readonly keys: readonly string[];
  readonly answers: readonly HttpResult[];
  /** Provider charges under the tabs' keys, and their sum. */
  readonly charges: number;
  readonly charged: number;
  /** `GET /v1/orders/{orderId}` after every tab was answered. */
  readonly order: {
    paidAmount: number;
    amount: number;
    status: string;
    payments: Array<{ chargeId: string }>;
  };
}

/** `1 × 201, 4 × 409 payment_in_progress`: the answers, counted by status and code, in status order. */
export function countedAnswers(answers: readonly HttpResult[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers)
    counts.set(describeAnswer(answer), (counts.get(describeAnswer(answer)) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([answer, n]) => `${n} × ${answer}`)
    .join(', ');
}

async function fiveTabs(ctx: StepContext): Promise<OverpayData> {
  const orderId = await ctx.newOrder('EUR', OVERPAY_AMOUNT);
  await ctx.target.setFaults('orders', [holdAt(AFTER_CHARGE, OVERPAY_HOLD_MS, OVERPAY_TABS)]);
  ctx.note(`each charge held ${OVERPAY_HOLD_MS} ms at ${AFTER_CHARGE}`);
  const keys = Array.from({ length: OVERPAY_TABS }, (_, i) => `overpay-${i + 1}-${randomUUID()}`);
  ctx.step(`${OVERPAY_TABS} payments of ${OVERPAY_AMOUNT} at once, each with its own key`);
  const answers = await Promise.all(
    keys.map((key) => ctx.pay({ key, orderId, amount: OVERPAY_AMOUNT, currency: 'EUR' })),
  );
  const read = await ctx.readOrder(orderId);
  if (read.status !== 200) throw new Error(`GET /v1/orders/${orderId} answered ${read.status}: ${read.text}`);
  const ledger = await ctx.target.charges();
  const ours = ledger.charges.filter((charge) =>
    keys.some((key) => charge.idempotencyKey.endsWith(`.${key}`)),
  );
  const charged = ours.reduce((sum, charge) => sum + charge.amount, 0);
  return { orderId, keys, answers, charges: ours.length, charged, order: read.body };
}

function overpayRow(design: string, settings: Record<string, unknown>, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`orders settings ${JSON.stringify(settings)}`);
      await ctx.target.configure('orders', settings);
      const data = await fiveTabs(ctx);
      return {
        cells: [
          countedAnswers(data.answers),
          String(data.charges),
          String(data.charged),
          String(data.order.paidAmount),
        ],
        data,
      };
    },
  };
}

export const overpayScenario = defineScenario<OverpayData>({
  name: 'overpay',
  title: `${OVERPAY_TABS} tabs pay the whole order (${OVERPAY_AMOUNT}) at once, each with its own key`,
  lesson:
    'Keys make each payment safe to retry; they do not make two payments one. Read the balance, then charge, and ' +
    'every tab reads the same balance before any charge lands: each is charged. Let the write decide: one ' +
    'conditional UPDATE reserves the amount before the charge leaves orders (paid + reserved + amount <= amount), ' +
    'so one tab is charged and the others are told the balance is held by a payment in progress.',
  columns: ['balance check', 'answers', 'provider charges', 'charged', 'paidAmount'],
  rows: [
    overpayRow('read-then-write', { balanceCheck: 'read-then-write' }, [
      `${OVERPAY_TABS} × 201`,
      String(OVERPAY_TABS),
      String(OVERPAY_TABS * OVERPAY_AMOUNT),
      String(OVERPAY_TABS * OVERPAY_AMOUNT),
    ]),
    overpayRow('reservation', {}, [
      `1 × 201, ${OVERPAY_TABS - 1} × 409 payment_in_progress`,
      '1',
      String(OVERPAY_AMOUNT),
      String(OVERPAY_AMOUNT),
    ]),
  ],
});
