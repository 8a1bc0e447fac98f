/**
 * apply-once: orders is killed (SIGKILL at `orders/after-charge`) after payments answered 201 (the provider
 * charged) and before the Charge was applied to the order. Twice per row, each time on a new order of the
 * payment's amount: once the client retries once; once two retries race, held 500 ms at
 * `orders/before-apply-write` (applying decided, nothing written) so they overlap whatever the machine's speed.
 * Every retry is passed on to payments, which replays the Charge: one provider charge per payment in every row.
 *
 * "read-then-write" is a demonstration mode (`PUT /__config {"applyCharge": "read-then-write"}` on orders, started
 * with FAULTS_ENABLED=true): a SELECT asks whether the Charge is recorded and the amount is added when it says no.
 */
import { randomUUID } from 'node:crypto';
import { armKill, bringBack, holdAt } from '../engine/crash.js';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, type StepContext } from '../engine/scenario.js';

/** The fault points of this scenario. */
export const AFTER_CHARGE = 'orders/after-charge';
export const BEFORE_APPLY_WRITE = 'orders/before-apply-write';

/** The order's amount, paid in one payment. */
export const APPLY_AMOUNT = 2_500;

/** How long each racing retry is held between deciding to apply and writing. */
export const RACE_HOLD_MS = 500;

/** What one crash and its retries measured. */
export interface ApplyPhase {
  readonly orderId: string;
  readonly key: string;
  /** The answer orders could not give (killed). */
  readonly lost: HttpResult;
  readonly retries: readonly HttpResult[];
  /** Provider charges under this payment's key. */
  readonly charges: number;
  /** `GET /v1/orders/{orderId}` after the retries. */
  readonly order: { paidAmount: number; amount: number; payments: Array<{ chargeId: string }> };
}

/** What one row measured. */
export interface ApplyOnceData {
  readonly retry: ApplyPhase;
  readonly race: ApplyPhase;
}

/** How many times the Charge's amount is in the order's `paidAmount`. */
export function timesApplied(phase: Pick<ApplyPhase, 'order'>): string {
  const times = phase.order.paidAmount / APPLY_AMOUNT;
  if (times === 1) return 'once';
  if (times === 2) return 'twice';
  return `${times} times`;
}

async function crashThenRetry(
  ctx: StepContext,
  settings: Record<string, unknown>,
  retries: number,
): Promise<ApplyPhase> {
  const orderId = await ctx.newOrder('EUR', APPLY_AMOUNT);
  const key = `apply-once-${randomUUID()}`;
  const payment = { key, orderId, amount: APPLY_AMOUNT, currency: 'EUR' };
  await armKill(ctx, 'orders', AFTER_CHARGE);
  ctx.step(`a payment of ${APPLY_AMOUNT} through the gateway; orders dies after the charge`);
  const lost = await ctx.pay(payment);
  await bringBack(ctx, 'orders', AFTER_CHARGE, settings);
  if (retries > 1) {
    await ctx.target.setFaults('orders', [holdAt(BEFORE_APPLY_WRITE, RACE_HOLD_MS, retries)]);
    ctx.note(`each apply held ${RACE_HOLD_MS} ms at ${BEFORE_APPLY_WRITE}`);
  }
  ctx.step(retries > 1 ? `${retries} retries at once, same key` : 'the client retries, same key');
  const answers = await Promise.all(Array.from({ length: retries }, () => ctx.pay(payment)));
  const read = await ctx.readOrder(orderId);
  if (read.status !== 200) throw new Error(`GET /v1/orders/${orderId} answered ${read.status}: ${read.text}`);
  const ledger = await ctx.target.charges();
  const charges = ledger.charges.filter((charge) => charge.idempotencyKey.endsWith(`.${key}`)).length;
  return { orderId, key, lost, retries: answers, charges, order: read.body };
}

function applyRow(design: string, settings: Record<string, unknown>, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`orders settings ${JSON.stringify(settings)}`);
      await ctx.target.configure('orders', settings);
      const retry = await crashThenRetry(ctx, settings, 1);
      const race = await crashThenRetry(ctx, settings, 2);
      return {
        cells: [
          `${retry.charges} / ${retry.order.paidAmount}`,
          `${race.charges} / ${race.order.paidAmount}`,
          timesApplied(race),
        ],
        data: { retry, race },
      };
    },
  };
}

export const applyOnceScenario = defineScenario<ApplyOnceData>({
  name: 'apply-once',
  title: `Orders is killed after the charge, before applying it to the order (${APPLY_AMOUNT}); the client retries`,
  lesson:
    'Payments replays the Charge to every retry, so the provider charges once in every design. Applying it to the ' +
    "order is the service's own write: one retry applies it once either way, but two racing retries both read " +
    '"not applied" before either writes, and a read-then-write adds the amount twice. Let the write decide: the ' +
    "record's unique index in the applying transaction makes the second retry wait and replay, and the charge's " +
    'primary key keeps any other path from applying it again.',
  columns: [
    'apply',
    'one retry: charges / paidAmount',
    'two racing retries: charges / paidAmount',
    'the race applied it',
  ],
  needs: { restart: true },
  rows: [
    applyRow('read-then-write', { applyCharge: 'read-then-write' }, [
      `1 / ${APPLY_AMOUNT}`,
      `1 / ${2 * APPLY_AMOUNT}`,
      'twice',
    ]),
    applyRow('unique constraint', {}, [`1 / ${APPLY_AMOUNT}`, `1 / ${APPLY_AMOUNT}`, 'once']),
  ],
});
