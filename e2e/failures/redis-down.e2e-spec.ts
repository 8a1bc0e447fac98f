/**
 * Scenario 2 (issue 5): Redis is down. Two calls with one key while the stack's Redis is stopped (or paused):
 *
 * | `IDEMPOTENCY_ON_STORE_UNAVAILABLE` | the two calls get                         | provider charges (dedup off) |
 * |------------------------------------|-------------------------------------------|------------------------------|
 * | `fail-closed` (the default)        | 503 idempotency_store_unavailable, Retry-After | 0, then 1 once Redis is back |
 * | `fail-open`                        | 201 each, two different Charges           | 2                            |
 *
 * The 503 comes within a bound derived from the settings below: every payments attempt costs at most the store's
 * command timeout, and every retry at most the http-client's largest backoff. Only orders retries payments' 503:
 * it passes the last one up marked `x-retry-exhausted`, and the gateway relays it without retrying (one retrying
 * layer). Nothing is restarted: the services reconnect to Redis on their own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import type { Response } from 'supertest';
import { expectReplayOf, newKey, newOrder, pay } from '../support/client.js';
import { DEMO_TENANTS, startStack, type ServiceName, type Stack } from '@retry-safe/scenarios';
import { PROBLEM, healthy, metricSum, paymentTraffic } from './failure-helpers.js';

const COMMAND_TIMEOUT_MS = 300;
const GATEWAY_RETRIES = 1;
const ORDERS_RETRIES = 1;
/** Longer than the retry budget below, so that budget, not the deadline, is what ends the call. */
const GATEWAY_DEADLINE_MS = 8_000;
/** packages/http-client's default `maxDelayMs`: no backoff is longer, whatever `Retry-After` says. */
const MAX_BACKOFF_MS = 1_000;
/**
 * A client call is one call to orders (the gateway does not retry the 503 orders marked `x-retry-exhausted`, so
 * `GATEWAY_RETRIES` adds nothing), which makes (1 + orders retries) calls to payments.
 */
const PAYMENTS_ATTEMPTS = 1 + ORDERS_RETRIES;
const BACKOFFS = ORDERS_RETRIES;
/** Three HTTP hops per attempt and a loaded 2-core machine. */
const SLACK_MS = 1_500;
const BOUND_MS = PAYMENTS_ATTEMPTS * COMMAND_TIMEOUT_MS + BACKOFFS * MAX_BACKOFF_MS + SLACK_MS;

const TENANT_A_HEX = DEMO_TENANTS.a.tenantId.replaceAll('-', '');
const SERVICES: ServiceName[] = ['provider', 'payments', 'orders', 'gateway'];

/** Sends the same payment twice at once and times each answer. */
async function twoCalls(
  stack: Stack,
  key: string,
  orderId: string,
): Promise<Array<{ res: Response; ms: number }>> {
  return Promise.all(
    [0, 1].map(async () => {
      const sentAt = Date.now();
      const res = await pay(stack, { key, orderId, amount: 4500 });
      return { res, ms: Date.now() - sentAt };
    }),
  );
}

function expectStoreUnavailable({ res, ms }: { res: Response; ms: number }): void {
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.body).toEqual({
    type: 'urn:retry-safe:problem:idempotency_store_unavailable',
    title: expect.any(String),
    status: 503,
    detail: expect.any(String),
    code: 'idempotency_store_unavailable',
  });
  expect(ms).toBeLessThan(BOUND_MS);
}

describe('scenario 2: Redis is down', () => {
  let stack: Stack;
  let pids: Array<number | undefined>;

  beforeAll(async () => {
    stack = await startStack({
      provider: { PROVIDER_DEDUP: 'off' },
      payments: { IDEMPOTENCY_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) },
      orders: { UPSTREAM_RETRIES: String(ORDERS_RETRIES) },
      gateway: {
        UPSTREAM_RETRIES: String(GATEWAY_RETRIES),
        GATEWAY_DEADLINE_MS: String(GATEWAY_DEADLINE_MS),
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });
  beforeEach(async () => {
    await stack.reset();
    pids = SERVICES.flatMap((service) => stack.processes(service).map((process) => process.pid));
  });

  /** Redis is back, every service reconnected by itself: same processes as before the outage. */
  async function expectReconnectedWithoutRestart(): Promise<void> {
    await healthy(stack, 'payments');
    await healthy(stack, 'orders');
    expect(SERVICES.flatMap((service) => stack.processes(service).map((process) => process.pid))).toEqual(
      pids,
    );
  }

  /** After the outage the same key charges exactly once, and the Charge is replayed from then on. */
  async function expectChargesOnceWhenBack(key: string, orderId: string): Promise<void> {
    const first = await pay(stack, { key, orderId, amount: 4500 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await pay(stack, { key, orderId, amount: 4500 });
    expectReplayOf(replay, first);
    const ledger = await stack.providerCharges();
    expect(ledger.calls).toBe(1);
    expect(ledger.charges).toEqual([
      expect.objectContaining({ id: first.body.providerChargeId, amount: 4500 }),
    ]);
  }

  it(`fail-closed, Redis stopped: both calls get 503 within ${BOUND_MS} ms and nothing is charged; back up, the key charges once`, async () => {
    const key = newKey();
    const orderId = await newOrder(stack);
    await stack.redis.control!.stop();

    const calls = await twoCalls(stack, key, orderId);

    calls.forEach(expectStoreUnavailable);
    // Orders retried the 503 as configured, then passed it up unchanged; the gateway did not retry it again.
    expect(await paymentTraffic(stack)).toEqual({
      gateway: 2,
      orders: 2,
      payments: 2 * PAYMENTS_ATTEMPTS,
      provider: 0,
    });
    expect((await stack.providerCharges()).calls).toBe(0);

    await stack.redis.control!.start();
    await expectReconnectedWithoutRestart();
    await expectChargesOnceWhenBack(key, orderId);
  });

  it(`fail-closed, Redis paused (answers nothing): each store call gives up after ${COMMAND_TIMEOUT_MS} ms; 503 within ${BOUND_MS} ms`, async () => {
    const key = newKey();
    const orderId = await newOrder(stack);
    const storeErrorsBefore = await metricSum(stack, 'payments', 'idempotency_events_total', {
      type: 'store_error',
    });
    stack.redis.control!.pause();

    let calls: Array<{ res: Response; ms: number }>;
    try {
      calls = await twoCalls(stack, key, orderId);
    } finally {
      stack.redis.control!.resume();
    }

    calls.forEach(expectStoreUnavailable);
    // Each of the payments attempts waited out the command timeout: it is the timeout that answered.
    for (const { ms } of calls) expect(ms).toBeGreaterThanOrEqual(PAYMENTS_ATTEMPTS * COMMAND_TIMEOUT_MS);
    expect(await paymentTraffic(stack)).toEqual({
      gateway: 2,
      orders: 2,
      payments: 2 * PAYMENTS_ATTEMPTS,
      provider: 0,
    });
    expect(
      (await metricSum(stack, 'payments', 'idempotency_events_total', { type: 'store_error' })) -
        storeErrorsBefore,
    ).toBe(2 * PAYMENTS_ATTEMPTS);

    await expectReconnectedWithoutRestart();
    // The claims sent while Redis was paused still run once it resumes; one of them reserves the key, and the
    // store gives it back as soon as that late answer arrives. Wait for that, as a client would by retrying.
    const record = `idem:payment.charge.${TENANT_A_HEX}:${key}`;
    const redis = stack.redis.client();
    try {
      await waitFor('the late reservation given back', async () => {
        const raw = await redis.get(record);
        if (raw !== null && /^\d+\|p\|/.test(raw)) throw new Error(`still reserved: ${raw}`);
      });
    } finally {
      redis.disconnect();
    }
    await expectChargesOnceWhenBack(key, orderId);
  });

  it('fail-open, Redis stopped: both calls charge (2 provider charges, two different Charges)', async () => {
    await stack.restart('payments', { IDEMPOTENCY_ON_STORE_UNAVAILABLE: 'fail-open' });
    await stack.reset();
    pids = SERVICES.flatMap((service) => stack.processes(service).map((process) => process.pid));
    const failOpenBefore = await metricSum(stack, 'payments', 'idempotency_events_total', {
      type: 'fail_open',
    });
    const key = newKey();
    const orderId = await newOrder(stack);
    await stack.redis.control!.stop();

    const calls = await twoCalls(stack, key, orderId);

    for (const { res } of calls) {
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body).toMatchObject({ orderId, amount: 4500, status: 'succeeded' });
    }
    expect(calls[0]?.res.body.id).not.toBe(calls[1]?.res.body.id);
    expect(await paymentTraffic(stack)).toEqual({ gateway: 2, orders: 2, payments: 2, provider: 2 });
    const ledger = await stack.providerCharges();
    expect(ledger.charges).toHaveLength(2);
    expect(ledger.charges.map((charge) => charge.id).sort()).toEqual(
      calls.map(({ res }) => res.body.providerChargeId as string).sort(),
    );
    expect(
      (await metricSum(stack, 'payments', 'idempotency_events_total', { type: 'fail_open' })) -
        failOpenBefore,
    ).toBe(2);

    await stack.redis.control!.start();
    await expectReconnectedWithoutRestart();
  });
});
