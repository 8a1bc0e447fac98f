/**
 * Provider throttling is not a refusal (issue 14, item 4). The provider answers 429, 408 or 503 once (a `status`
 * fault before its handler: nothing charged): the client gets 503 `provider_unavailable` with the provider's
 * `Retry-After`, nothing is stored, and no hop retries it (payments marks it `x-retry-exhausted`: throttling is the
 * provider's pushback, for the end client). The same key then charges once. Only a permanent refusal is 422
 * `payment_rejected`. Before: every 4xx of the provider was 422, and a 503 was a 502 that every hop retried.
 */
import { describe, expect, it } from '@jest/globals';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { CHARGES_ROUTE, PROBLEM, paymentTraffic } from '../failures/failure-helpers.js';
import { recordState } from './chain-helpers.js';
import { useStack } from '../support/stack.js';

describe('the provider throttling', () => {
  const stack = useStack();

  it.each([
    { status: 429, code: 'rate_limited', retryAfter: 2 },
    { status: 408, code: 'request_timeout', retryAfter: undefined },
    { status: 503, code: 'service_unavailable', retryAfter: 5 },
  ])(
    'a $status from the provider: 503 provider_unavailable with Retry-After, nothing stored; then the same key charges once',
    async ({ status, code, retryAfter }) => {
      await stack().setFaults('provider', [
        {
          method: 'POST',
          path: '/v1/charges',
          at: 'before-handler',
          action: 'status',
          status,
          code,
          times: 1,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        },
      ]);
      const key = newKey();
      const orderId = await newOrder(stack());

      const throttled = await pay(stack(), { key, orderId, amount: 3300 });

      expect(throttled.status).toBe(503);
      expect(throttled.headers['content-type']).toMatch(PROBLEM);
      expect(throttled.headers['retry-after']).toBe(String(retryAfter ?? 1));
      expect(throttled.body).toMatchObject({ status: 503, code: 'provider_unavailable' });
      // One call per hop: nobody in the chain retried the throttled charge.
      expect(await paymentTraffic(stack())).toEqual({ gateway: 1, orders: 1, payments: 1, provider: 1 });
      expect((await stack().faults('provider')).rules[0]?.fired).toBe(1);
      // The reservation was given back (a fenced tombstone), no result stored.
      expect(await recordState(stack(), key)).toBe('released');
      expect((await stack().providerCharges()).charges).toHaveLength(0);

      const paid = await pay(stack(), { key, orderId, amount: 3300 });
      const replay = await pay(stack(), { key, orderId, amount: 3300 });

      expect(paid.status).toBe(201);
      expect(paid.headers['idempotent-replayed']).toBeUndefined();
      expectReplayOf(replay, paid);
      const ledger = await stack().providerCharges();
      expect(ledger.charges).toEqual([
        expect.objectContaining({ id: paid.body.providerChargeId, amount: 3300 }),
      ]);
      expect((await stack().faultCounts('provider'))[CHARGES_ROUTE]).toBe(2);
    },
  );

  it('a permanent refusal (402 card_declined) stays 422 payment_rejected, retried by nobody, nothing stored', async () => {
    await stack().setFaults('provider', [
      {
        method: 'POST',
        path: '/v1/charges',
        at: 'before-handler',
        action: 'status',
        status: 402,
        code: 'card_declined',
      },
    ]);
    const key = newKey();

    const refused = await pay(stack(), { key });

    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ status: 422, code: 'payment_rejected' });
    expect(await paymentTraffic(stack())).toEqual({ gateway: 1, orders: 1, payments: 1, provider: 1 });
    expect(await recordState(stack(), key)).toBe('released');
  });
});
