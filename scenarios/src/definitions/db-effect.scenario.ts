/**
 * db-effect: an order is created through the gateway, and orders is killed (SIGKILL at `orders/after-create-commit`)
 * once the order's transaction has committed, before the answer. Where the processing record of the key lives
 * decides what the client's retry with the same key does.
 *
 * "separate store (Redis)" is a demonstration mode (`PUT /__config {"createRecord": "redis"}` on orders, started
 * with FAULTS_ENABLED=true): the record is a Redis reservation (1 s lease) around the order's own transaction, so
 * the kill falls between the order's commit and the record's completion. The retry waits out the dead owner's
 * lease, takes the key over and creates the order again.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { armKill, bringBack } from '../engine/crash.js';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, describeAnswer, type StepContext } from '../engine/scenario.js';

/** The fault point of this scenario. */
export const AFTER_CREATE_COMMIT = 'orders/after-create-commit';

/** What one row measured. */
export interface DbEffectData {
  readonly key: string;
  /** The order's amount: unique to the row, so the list (and a suite, the database) finds its orders by it. */
  readonly amount: number;
  readonly first: HttpResult;
  readonly retry: HttpResult;
  /** Ids of the tenant's orders with this amount, created since the row began, newest first. */
  readonly orderIds: readonly string[];
}

/** What the retry got, in words. */
export function retryGot(retry: HttpResult): string {
  if (retry.status !== 201) return describeAnswer(retry);
  return retry.headers['idempotent-replayed'] === 'true' ? '201, replayed' : '201, a new order';
}

/** The ids of the tenant's orders of `amount` created at or after `since` (epoch ms), newest first. */
export async function ordersSince(ctx: StepContext, amount: number, since: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ctx.listOrders(cursor);
    if (page.status !== 200) throw new Error(`GET /v1/orders answered ${page.status}: ${page.text}`);
    const orders = page.body.orders as Array<{ id: string; amount: number; createdAt: string }>;
    for (const order of orders) {
      if (Date.parse(order.createdAt) < since) return ids;
      if (order.amount === amount) ids.push(order.id);
    }
    cursor = page.body.nextCursor ?? undefined;
    if (cursor === undefined) return ids;
  }
}

function dbEffectRow(design: string, settings: Record<string, unknown>, expected: readonly string[]) {
  return {
    design,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`orders settings ${JSON.stringify(settings)}; kill orders at ${AFTER_CREATE_COMMIT}`);
      await ctx.target.configure('orders', settings);
      await armKill(ctx, 'orders', AFTER_CREATE_COMMIT);
      // A second early: the database's clock stamps created_at; the amount is what tells this row's orders.
      const since = Date.now() - 1_000;
      const key = `db-effect-${randomUUID()}`;
      const amount = randomInt(100_000, 10_000_000);
      ctx.step('one order through the gateway');
      const first = await ctx.createOrder({ key, amount, currency: 'EUR' });
      await bringBack(ctx, 'orders', AFTER_CREATE_COMMIT, settings);
      ctx.step('the client retries with the same key');
      const retry = await ctx.createOrder({ key, amount, currency: 'EUR' });
      const orderIds = await ordersSince(ctx, amount, since);
      return {
        cells: [describeAnswer(first), retryGot(retry), String(orderIds.length)],
        data: { key, amount, first, retry, orderIds },
      };
    },
  };
}

export const dbEffectScenario = defineScenario<DbEffectData>({
  name: 'db-effect',
  title: "Orders is killed after an order's commit, before its answer; the client retries with the same key",
  lesson:
    'A change to your own database gets its processing record in the same transaction. Kept in another store ' +
    "(Redis), the record cannot commit with the order: killed between the two, the order stays, the record's " +
    'reservation runs out, and the retry creates a second order. In the same transaction, the order and its ' +
    'record commit together, and the retry replays the order.',
  columns: ['processing record', '1st request got', 'the retry got', 'orders created for the key'],
  needs: { restart: true },
  rows: [
    dbEffectRow('separate store (Redis)', { createRecord: 'redis' }, [
      '502 upstream_unavailable',
      '201, a new order',
      '2',
    ]),
    dbEffectRow('same transaction', {}, ['502 upstream_unavailable', '201, replayed', '1']),
  ],
});
