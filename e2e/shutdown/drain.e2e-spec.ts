/**
 * Draining on SIGTERM (the shell's shutdown order): a service that is told to stop while a payment is inside the
 * provider call finishes that payment (201, one charge) and then exits; a rolling restart of the chain's services
 * under a steady client load loses no payment and charges none twice.
 */
import { describe, expect, it } from '@jest/globals';
import { sleep } from '@retry-safe/testing';
import { fetchPayment, pay, newKey, newOrder, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import type { ServiceName } from '@retry-safe/scenarios';
import { useStack } from '../support/stack.js';

// What a careful client retries with the same key: a hop that got no answer (502/504), a 503, a lost connection.
const RETRIED_STATUSES = new Set([502, 503, 504]);
const CLIENT_ATTEMPTS = 60;
const CLIENT_RETRY_DELAY_MS = 100;
// ~20 client payments per second while the restart runs, at most this many (a bounded loop).
const PAYMENT_INTERVAL_MS = 50;
const MAX_PAYMENTS = 400;

/** One client payment over fetch, retried with the same key; resolves with its final status and attempts. */
async function payUntilAnswered(
  gateway: () => string,
  orderId: string,
  key: string,
): Promise<{ status: number; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    let status: number | undefined;
    try {
      const res = await fetchPayment(gateway(), orderId, key, 1999);
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = undefined; // connection refused or closed: the service is restarting
    }
    if (status !== undefined && !RETRIED_STATUSES.has(status)) return { status, attempts: attempt };
    if (attempt >= CLIENT_ATTEMPTS) return { status: status ?? 0, attempts: attempt };
    await sleep(CLIENT_RETRY_DELAY_MS);
  }
}

describe('drain: SIGTERM finishes the running requests before anything closes', () => {
  const stack = useStack();

  it.each<ServiceName>(['gateway', 'orders', 'payments'])(
    'SIGTERM to %s while a charge is inside the provider call: 201, charged once, and the process exits',
    async (service) => {
      const [target] = stack().processes(service);
      if (target === undefined) throw new Error(`${service} is not running`);
      await holdNextCharge(stack());
      const call = { key: newKey(`drain-${service}`), orderId: await newOrder(stack()) };
      const payment = sendNow(pay(stack(), call));
      await chargeIsHeld(stack());

      const exited = target.kill('SIGTERM');
      const res = await payment;
      await exited;

      expect([res.status, res.body.amount, res.headers['idempotent-replayed']]).toEqual([
        201,
        1999,
        undefined,
      ]);
      const { calls, charges } = await stack().providerCharges();
      expect([calls, charges.length]).toEqual([1, 1]);
      // The exit came from the shell's shutdown, after the drain, not from a timeout or a crash.
      expect(target.output()).toMatch(/"msg":"draining"[\s\S]*"msg":"stopped"/);
      expect(target.output()).not.toContain('drain timed out');

      await target.start();
      // The same key after the restart is a replay: the record outlived the process.
      const replay = await pay(stack(), call);
      expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect((await stack().providerCharges()).charges).toHaveLength(1);
    },
  );

  it('a rolling restart of payments, orders and the gateway under ~20 payments/s: every payment 201, none charged twice', async () => {
    const payments: Array<Promise<{ key: string; status: number; attempts: number }>> = [];
    // One order owes the largest amount, far more than MAX_PAYMENTS payments of 1999: each payment has its own key.
    const orderId = await newOrder(stack());
    let restarting = true;
    const load = (async () => {
      for (let i = 0; i < MAX_PAYMENTS && restarting; i++) {
        const key = newKey(`rolling-${i}`);
        payments.push(
          payUntilAnswered(() => stack().urls.gateway, orderId, key).then((result) => ({ key, ...result })),
        );
        await sleep(PAYMENT_INTERVAL_MS);
      }
    })();
    // One service after the other, each SIGTERMed (it drains) and started again on its port, while clients pay.
    for (const service of ['payments', 'orders', 'gateway'] as const) {
      for (const running of stack().processes(service)) {
        await running.kill('SIGTERM');
        await running.start();
      }
    }
    restarting = false;
    await load;
    const results = await Promise.all(payments);

    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((result) => result.status !== 201)).toEqual([]);
    const { charges } = await stack().providerCharges();
    const chargedKeys = charges.map((charge) => charge.idempotencyKey);
    // One provider charge per client payment: none lost, none twice.
    expect(chargedKeys).toHaveLength(results.length);
    expect(new Set(chargedKeys).size).toBe(results.length);
    // The restart really happened under load: some payments needed a retry.
    const retried = results.filter((result) => result.attempts > 1).length;
    process.stdout.write(`rolling restart: ${results.length} payments, ${retried} retried at least once\n`);
  });
});
