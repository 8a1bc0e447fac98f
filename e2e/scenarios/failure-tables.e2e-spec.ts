/**
 * The provider, lease and redis-down tables, run from their shared definitions (the tables the runner prints) on
 * one stack whose private Redis the test may stop. Finer assertions on what each row measured come after the
 * row's equality with the documented one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  startStack,
  type Stack,
  leaseScenario,
  type LeaseData,
  providerScenario,
  type ProviderData,
  redisDownScenario,
  type RedisDownData,
  expectedTable,
  runRow,
  stackTarget,
  type ScenarioTarget,
} from '@retry-safe/scenarios';
import { newOrder } from '../support/client.js';
import { rowOf } from '../support/scenario-rows.js';

describe('failure tables', () => {
  let stack: Stack;
  let target: ScenarioTarget;

  beforeAll(async () => {
    stack = await startStack();
    target = stackTarget(stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('document the tables the runner prints', () => {
    expect(expectedTable(providerScenario)).toEqual([
      ['no dedup', '2', '2'],
      ['dedup by the provider key', '2', '1'],
    ]);
    expect(expectedTable(leaseScenario)).toEqual([
      ['off', '409 idempotency_lease_lost', '201', '2'],
      ['on', '201', '409 payment_in_progress', '1'],
    ]);
    expect(expectedTable(redisDownScenario)).toEqual([
      ['fail-closed', '503, 503', '0'],
      ['fail-open', '201, 201', '2'],
    ]);
  });

  describe('provider: the provider charged, its answer was lost', () => {
    it('no dedup: 2 calls, 2 charges, both under the same provider key', async () => {
      const result = await runRow(providerScenario, rowOf(providerScenario, 'no dedup'), target);
      const { res, ledger } = result.data as ProviderData;

      expect(result.measured).toEqual(result.expected);
      expect(res.status).toBe(201);
      expect(new Set(ledger.charges.map((charge) => charge.idempotencyKey)).size).toBe(1);
      expect(result.diagram).toContain('X--xP: answer lost');
    });

    it('dedup by the provider key: 2 calls, 1 charge, and the client gets that charge', async () => {
      const result = await runRow(
        providerScenario,
        rowOf(providerScenario, 'dedup by the provider key'),
        target,
      );
      const { res, ledger } = result.data as ProviderData;

      expect(result.measured).toEqual(result.expected);
      expect(res.status).toBe(201);
      expect(res.body.providerChargeId).toBe(ledger.charges[0]?.id);
      expect(result.diagram).toContain('replayed by the provider (no new effect)');
    });
  });

  describe('lease: the action outlives a 1 s lease', () => {
    it('renewal off: the duplicate runs beside the first; the stale owner is refused its write', async () => {
      const result = await runRow(leaseScenario, rowOf(leaseScenario, 'off'), target);
      const { first, second, ledger } = result.data as LeaseData;

      expect(result.measured).toEqual(result.expected);
      expect(first.body).toMatchObject({ status: 409, code: 'idempotency_lease_lost' });
      expect(second.status).toBe(201);
      expect(ledger.charges).toHaveLength(2);
    });

    it('renewal on: the duplicate gets 409 with Retry-After throughout, 1 charge', async () => {
      const result = await runRow(leaseScenario, rowOf(leaseScenario, 'on'), target);
      const { first, second, ledger } = result.data as LeaseData;

      expect(result.measured).toEqual(result.expected);
      expect(first.status).toBe(201);
      expect(second.headers['retry-after']).toBe('1');
      expect(ledger.charges).toHaveLength(1);
    });
  });

  describe('redis-down: two calls with one key while Redis is stopped', () => {
    afterAll(async () => {
      await target.reset();
    });

    it('fail-closed: 503 idempotency_store_unavailable with Retry-After, within the command timeout, 0 charges', async () => {
      const result = await runRow(redisDownScenario, rowOf(redisDownScenario, 'fail-closed'), target);
      const { answers, durationsMs, ledger } = result.data as RedisDownData;

      expect(result.measured).toEqual(result.expected);
      for (const answer of answers) {
        expect(answer.body).toMatchObject({ status: 503, code: 'idempotency_store_unavailable' });
        expect(answer.headers['retry-after']).toBeDefined();
      }
      // IDEMPOTENCY_COMMAND_TIMEOUT_MS is 1 s: a fail-closed answer never waits on a dead Redis longer.
      for (const ms of durationsMs) expect(ms).toBeLessThan(1_500);
      expect(ledger.calls).toBe(0);
    });

    it('fail-open: both calls charge (2 different Charges); Redis back, payments work again without a restart', async () => {
      const result = await runRow(redisDownScenario, rowOf(redisDownScenario, 'fail-open'), target);
      const { answers, ledger } = result.data as RedisDownData;

      expect(result.measured).toEqual(result.expected);
      expect(answers[0]?.body.id).not.toBe(answers[1]?.body.id);
      expect(ledger.calls).toBe(2);

      await target.reset();
      const key = `after-${randomUUID()}`;
      const orderId = await newOrder(stack);
      const pay = () =>
        fetch(`${stack.urls.gateway}/v1/orders/${orderId}/payments`, {
          method: 'POST',
          headers: {
            authorization: 'Bearer demo-token-tenant-a',
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify({ amount: 500, currency: 'EUR' }),
        });
      const [again, replay] = [await pay(), await pay()];
      expect([again.status, replay.status]).toEqual([201, 201]);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await target.charges()).charges).toHaveLength(1);
    });
  });
});
