/**
 * Scenario 7 (issue 5): many replicas. Two payments processes behind orders (round robin over `PAYMENTS_URL`),
 * 200 concurrent requests with one key through the gateway while the provider holds the first charge for 1 s.
 * Provider dedup is off: the one charge is the coordinator's doing, across processes.
 *
 * | `IDEMPOTENCY_IN_FLIGHT` | provider charges | the 200 get                                    |
 * |-------------------------|------------------|------------------------------------------------|
 * | raise                   | 1                | the Charge (first, or replayed) or 409, nothing else |
 * | wait                    | 1                | the same Charge, all 200 (1 executed, 199 replayed) |
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newKey, newOrder, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { startStack, type Stack } from '@retry-safe/scenarios';
import { PAYMENTS_ROUTE, metricSum, paymentTraffic } from './failure-helpers.js';

const REQUESTS = 200;
const HOLD_MS = 1_000;
/**
 * Each store call may wait its turn behind the burst (200 requests on two shared cores, and in `wait` mode 199
 * waiters woken at once): this scenario is about the in-flight modes, not about a store too slow to answer
 * (redis-down covers that), so the bound is 3 s instead of 1 s. Below orders' 5 s attempt timeout, so a slow store
 * call is never retried by the hop above it.
 */
const STORE_TIMEOUT = { IDEMPOTENCY_COMMAND_TIMEOUT_MS: '3000' };
/**
 * The hops' bounds, for the same reason: a full `pnpm test` runs this burst beside another suite (the console's
 * browser, say), and then all 200 answered 504 `upstream_timeout` (orders past the gateway's 5 s attempt), or, with
 * that raised, 503 `database_unavailable` (a request waiting more than 2 s for one of orders' 10 database
 * connections). Load shedding and timeouts are the subjects of other suites (chain/deadlines, bad-input), not of
 * this one.
 */
const HOP_TIMEOUT = { UPSTREAM_ATTEMPT_TIMEOUT_MS: '15000' };

describe(`scenario 7: 2 payments replicas, ${REQUESTS} concurrent requests, one key`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      paymentsReplicas: 2,
      // The chain's deadline is the gateway's; the hops below carry it on.
      gateway: { ...HOP_TIMEOUT, GATEWAY_DEADLINE_MS: '30000' },
      payments: { IDEMPOTENCY_IN_FLIGHT: 'raise', ...STORE_TIMEOUT },
      orders: { ...STORE_TIMEOUT, ...HOP_TIMEOUT, DATABASE_CONNECT_TIMEOUT_MS: '15000' },
      provider: { PROVIDER_DEDUP: 'off' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it.each(['raise', 'wait'] as const)('IDEMPOTENCY_IN_FLIGHT=%s: 1 provider charge', async (mode) => {
    await stack.restart('payments', { IDEMPOTENCY_IN_FLIGHT: mode });
    await stack.reset();
    await holdNextCharge(stack, HOLD_MS);
    const outcome = (value: string) => metricSum(stack, 'payments', 'payments_total', { outcome: value });
    const [executedBefore, replayedBefore] = [await outcome('executed'), await outcome('replayed')];
    const key = newKey();
    const orderId = await newOrder(stack);

    const responses = await Promise.all(
      Array.from({ length: REQUESTS }, () => sendNow(pay(stack, { key, orderId, amount: 9900 }))),
    );
    await chargeIsHeld(stack);

    const created = responses.filter((res) => res.status === 201);
    const inProgress = responses.filter((res) => res.status === 409);
    // Anything else is printed whole: a status alone does not say which hop answered it.
    const other = responses.filter((res) => res.status !== 201 && res.status !== 409);
    expect(other.map((res) => ({ status: res.status, body: res.body }))).toEqual([]);
    // Every 201 carries the same Charge, byte for byte; exactly one of them executed.
    expect(new Set(created.map((res) => res.text)).size).toBe(1);
    expect(created.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const res of inProgress) expect(res.body).toMatchObject({ code: 'payment_in_progress' });
    if (mode === 'wait') expect(created).toHaveLength(REQUESTS);
    expect((await outcome('executed')) - executedBefore).toBe(1);
    // At least one replay per other 201: under 200 concurrent calls a hop may resend an attempt whose answer came
    // late (axios-retry, same key), which payments answers as one replay more; the charge count below stays exact.
    expect((await outcome('replayed')) - replayedBefore).toBeGreaterThanOrEqual(created.length - 1);

    const ledger = await stack.providerCharges();
    expect(ledger.calls).toBe(1);
    expect(ledger.charges).toEqual([expect.objectContaining({ id: created[0]?.body.providerChargeId })]);
    // Spread over both replicas, each request once (no hop retries a 201 or a 409).
    const [first, second] = await Promise.all([0, 1].map((replica) => stack.faults('payments', replica)));
    expect(first?.requests[PAYMENTS_ROUTE]).toBeGreaterThan(0);
    expect(second?.requests[PAYMENTS_ROUTE]).toBeGreaterThan(0);
    expect(await paymentTraffic(stack)).toEqual({
      gateway: REQUESTS,
      orders: REQUESTS,
      payments: REQUESTS,
      provider: 1,
    });
  });
});
