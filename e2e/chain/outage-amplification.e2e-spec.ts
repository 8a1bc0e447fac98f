/**
 * A sustained payments outage must not multiply load (issue 14, item 1): clients pay at a steady 50 requests per
 * second for 10 s while every request to payments loses its connection. Each client of a service holds a retry
 * budget (each call earns 0.1 of a retry, at most 10 banked), and the gateway never retries the 502 orders marked
 * `x-retry-exhausted`, so payments receives at most 1.1 x the client requests + 10, under the goal of 1.2 x.
 * Before: every hop spent its 3 retries on every request, (1 + 3) x (1 + 3) = 16 calls to payments per request.
 */
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRY_BUDGET } from '@retry-safe/http-client';
import type { Response } from 'supertest';
import { sleep } from '@retry-safe/testing';
import { pay } from '../support/client.js';
import { useStack } from '../support/stack.js';
import { paymentTraffic } from '../failures/failure-helpers.js';

const RATE_PER_S = 50;
const DURATION_S = 10;
const REQUESTS = RATE_PER_S * DURATION_S;
const GOAL_RATIO = 1.2;

describe(`a payments outage at ${RATE_PER_S} client requests/s for ${DURATION_S} s`, () => {
  const stack = useStack();

  it(`payments receives at most ${GOAL_RATIO} x the client requests; every client gets 502 upstream_unavailable (504 upstream_timeout if its deadline ran out)`, async () => {
    await stack().setFaults('payments', [
      { method: 'POST', path: '/v1/payments', at: 'before-handler', action: 'drop' },
    ]);

    // A bounded loop: request n leaves at n / RATE seconds, whether or not the earlier ones were answered.
    const startedAt = Date.now();
    const answers: Array<Promise<Response>> = [];
    for (let n = 0; n < REQUESTS; n++) {
      const due = startedAt + (n * 1000) / RATE_PER_S;
      if (due > Date.now()) await sleep(due - Date.now());
      answers.push(pay(stack(), { amount: 1000 + (n % 100) }).then((res) => res));
    }
    const responses = await Promise.all(answers);

    const traffic = await paymentTraffic(stack());
    const ratio = traffic.payments / REQUESTS;
    console.log(
      `outage: ${REQUESTS} client requests -> ${traffic.payments} at payments (x${ratio.toFixed(3)})`,
    );
    expect(traffic.gateway).toBe(REQUESTS);
    // The gateway retried none of orders' marked 502s.
    expect(traffic.orders).toBe(REQUESTS);
    // The bound the budget guarantees, and the goal.
    const { ratio: budgetRatio, burst } = DEFAULT_RETRY_BUDGET;
    expect(traffic.payments).toBeLessThanOrEqual(REQUESTS * (1 + budgetRatio) + burst);
    expect(ratio).toBeLessThanOrEqual(GOAL_RATIO);
    expect(traffic.provider).toBe(0);
    // Each client gets the outage as a failure of the upstream: 502 once orders gave up on payments, or 504 when a
    // loaded machine ran the request's deadline out first (a full run here got one). Never a retry's success.
    for (const res of responses) {
      expect([502, 504]).toContain(res.status);
      expect(res.body).toMatchObject({
        code: res.status === 502 ? 'upstream_unavailable' : 'upstream_timeout',
      });
    }
  });
});
