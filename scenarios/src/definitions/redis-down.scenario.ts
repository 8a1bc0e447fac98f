/**
 * redis-down: Redis is unavailable while two calls with one key reach payments (straight, as orders would send
 * them: the hops' retries of a 503 would only add time). What payments does is its store policy
 * (`IDEMPOTENCY_ON_STORE_UNAVAILABLE`, switched live).
 */
import { randomUUID } from 'node:crypto';
import type { HttpResult } from '../engine/http.js';
import { defineScenario, type StepContext } from '../engine/scenario.js';
import type { ChargeLedger } from '../engine/target.js';

/** What one row measured. */
export interface RedisDownData {
  readonly answers: readonly HttpResult[];
  readonly ledger: ChargeLedger;
  /** How long each call took, in ms (fail-closed answers within the store's command timeout). */
  readonly durationsMs: readonly number[];
}

function redisDownRow(policy: 'fail-closed' | 'fail-open', expected: readonly string[]) {
  return {
    design: policy,
    expected,
    async run(ctx: StepContext) {
      ctx.step(`payments ${policy}, provider dedup off`);
      await ctx.target.configure('payments', { onStoreUnavailable: policy });
      await ctx.target.configure('provider', { dedup: 'off' });
      const control = ctx.target.redisControl;
      if (control === undefined) throw new Error('redis-down needs a RedisControl');
      ctx.step(`Redis away (${control.description})`);
      await control.stop();
      ctx.note('Redis unavailable');
      const answers: HttpResult[] = [];
      const durationsMs: number[] = [];
      try {
        const key = `redis-down-${randomUUID()}`;
        const orderId = randomUUID();
        for (const n of [1, 2]) {
          ctx.step(`call ${n} of 2, same key, straight to payments`);
          const started = Date.now();
          answers.push(await ctx.payDirectly({ key, orderId }));
          durationsMs.push(Date.now() - started);
        }
      } finally {
        ctx.step('Redis back; waiting for every service to reconnect');
        await control.start();
        ctx.note('Redis available again');
        await ctx.target.healthy(30_000);
      }
      const ledger = await ctx.target.charges();
      return {
        cells: [answers.map((answer) => answer.status).join(', '), String(ledger.charges.length)],
        data: { answers, ledger, durationsMs },
      };
    },
  };
}

export const redisDownScenario = defineScenario<RedisDownData>({
  name: 'redis-down',
  title: 'Redis is unavailable while two calls with the same key arrive',
  lesson:
    'Without its store the coordinator cannot tell a retry from a new payment. Fail-closed (the default) refuses ' +
    'with 503 `idempotency_store_unavailable` and `Retry-After`: nothing is charged, the client retries later. ' +
    'Fail-open charges on every call.',
  columns: ['policy', 'responses', 'provider charges'],
  needs: { redisControl: true },
  rows: [redisDownRow('fail-closed', ['503, 503', '0']), redisDownRow('fail-open', ['201, 201', '2'])],
});
