/**
 * The in-flight table (issue 3): a second request with the same key arrives while the first is held inside the
 * provider call (a `delay` fault at the provider). What payments does with it is `IDEMPOTENCY_IN_FLIGHT`:
 *
 * | mode  | provider charges | the second request gets         |
 * |-------|------------------|---------------------------------|
 * | run   | 2                | its own Charge (the hazard)     |
 * | wait  | 1                | the first one's Charge, replayed |
 * | raise | 1                | 409 payment_in_progress         |
 *
 * The `run` row turns provider dedup off: with it on, the provider would hide the duplicate the mode causes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { newKey, pay, sendNow } from '../support/client.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { startStack, type Stack } from '../support/stack.js';

/** Sends two payments with one key, the second once the first is held at the provider. */
async function duplicateWhileHeld(stack: Stack): Promise<{ first: Response; second: Response }> {
  await stack.reset();
  await holdNextCharge(stack);
  const key = newKey();
  const orderId = randomUUID();
  const first = sendNow(pay(stack, { key, orderId }));
  await chargeIsHeld(stack);
  const second = await pay(stack, { key, orderId });
  return { first: await first, second };
}

describe('in flight: a duplicate while the first request is inside the provider call', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      payments: { IDEMPOTENCY_IN_FLIGHT: 'raise' },
      provider: { PROVIDER_DEDUP: 'on' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  // One stack; each row restarts payments (and provider-sim) with its settings.
  it.each([
    // Ordered so each row restarts as little as possible: raise is the start-up default.
    { mode: 'raise', providerDedup: 'on', charges: 1 },
    { mode: 'wait', providerDedup: 'on', charges: 1 },
    { mode: 'run', providerDedup: 'off', charges: 2 },
  ] as const)(
    'IDEMPOTENCY_IN_FLIGHT=$mode: $charges provider charge(s)',
    async ({ mode, providerDedup, charges }) => {
      await stack.restart('provider', { PROVIDER_DEDUP: providerDedup });
      await stack.restart('payments', { IDEMPOTENCY_IN_FLIGHT: mode });

      const { first, second } = await duplicateWhileHeld(stack);
      const ledger = await stack.providerCharges();

      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      switch (mode) {
        case 'run':
          // Both ran the action: two charges, two different Charges.
          expect(second.status).toBe(201);
          expect(second.body.id).not.toBe(first.body.id);
          break;
        case 'wait':
          // The second waited for the first and got its Charge.
          expect(second.status).toBe(201);
          expect(second.headers['idempotent-replayed']).toBe('true');
          expect(second.text).toBe(first.text);
          break;
        case 'raise':
          expect(second.status).toBe(409);
          expect(second.headers['retry-after']).toBe('1');
          expect(second.body).toMatchObject({ status: 409, code: 'payment_in_progress' });
          break;
      }
      expect(ledger.calls).toBe(charges);
      expect(ledger.charges).toHaveLength(charges);
      // Each request reached payments exactly once: the hops do not retry a 409 or a held call.
      expect((await stack.faultCounts('payments'))['POST /v1/payments']).toBe(2);
    },
  );
});
