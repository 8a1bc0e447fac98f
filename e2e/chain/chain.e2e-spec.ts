/**
 * Chain (issue 3): gateway -> orders -> payments -> provider, with two responses lost after their handlers ran:
 * payments' once (orders retries it) and orders' once (the gateway retries it). Every design sees the same
 * traffic, 2 requests at orders and 3 at payments; what differs is how many of them charge. The designs are the
 * shared definition in scenarios/src/definitions/chain.scenario.ts (the table the runner prints), switched on the running stack
 * with `PUT /__config`:
 *
 * | design                                         | provider charges |
 * |------------------------------------------------|------------------|
 * | no coordinator (`IDEMPOTENCY_ENABLED=false`)   | 3                |
 * | the gateway mints a fresh key per attempt      | 2                |
 * | the client's key propagated on every attempt   | 1                |
 *
 * "No coordinator" runs with provider dedup off, where it would otherwise hide the duplicates; fresh keys defeat
 * provider dedup anyway.
 */
import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import request from 'supertest';
import {
  chainScenario,
  stackTarget,
  DEMO_INTERNAL_TOKEN,
  DEMO_TENANTS,
  type Stack,
} from '@retry-safe/scenarios';
import { waitFor } from '@retry-safe/testing';
import { newKey, newOrder, pay, sendNow } from '../support/client.js';
import { useStack } from '../support/stack.js';
import { chargeIsHeld, holdNextCharge } from '../support/hold.js';
import { itRunsEveryRow } from '../support/scenario-rows.js';

const ORDERS_ROUTE = 'POST /v1/orders/:orderId/payments';
const PAYMENTS_ROUTE = 'POST /v1/payments';
const PROBLEM = /^application\/problem\+json/;

/** `POST /v1/payments` straight to payments, as orders sends it. */
function payDirectly(stack: Stack, key: string, orderId: string, amount: number): request.Test {
  return request(stack.urls.payments)
    .post('/v1/payments')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${DEMO_INTERNAL_TOKEN}`)
    .set('Idempotency-Key', key)
    .send(JSON.stringify({ tenantId: DEMO_TENANTS.a.tenantId, orderId, amount, currency: 'EUR' }));
}

describe('chain: gateway -> orders -> payments -> provider', () => {
  const stack = useStack({}, { resetEach: false });

  describe('409 and 422 from payments reach the client unchanged through both hops', () => {
    beforeEach(async () => {
      await stack().reset();
    });

    it('422 idempotency_key_reused: same status, body bytes and media type as payments answered, no retries', async () => {
      const key = newKey();
      const orderId = await newOrder(stack());
      expect((await pay(stack(), { key, orderId, amount: 1000 })).status).toBe(201);
      await stack().reset();

      const client = await pay(stack(), { key, orderId, amount: 1500 });
      const fromPayments = await payDirectly(stack(), key, orderId, 1500);

      expect(fromPayments.status).toBe(422);
      expect(client.status).toBe(422);
      expect(client.headers['content-type']).toMatch(PROBLEM);
      expect(client.body).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
      expect(client.text).toBe(fromPayments.text);
      // One request per hop for the client's call (plus the direct one at payments): a 4xx is never retried.
      expect((await stack().faultCounts('orders'))[ORDERS_ROUTE]).toBe(1);
      expect((await stack().faultCounts('payments'))[PAYMENTS_ROUTE]).toBe(2);
      expect((await stack().providerCharges()).calls).toBe(0);
    });

    it('409 payment_in_progress: same status, body bytes and Retry-After as payments answered, no retries', async () => {
      await holdNextCharge(stack());
      const key = newKey();
      const orderId = await newOrder(stack());
      const first = sendNow(pay(stack(), { key, orderId, amount: 1000 }));
      await chargeIsHeld(stack());

      const client = await pay(stack(), { key, orderId, amount: 1000 });
      const fromPayments = await payDirectly(stack(), key, orderId, 1000);

      expect(fromPayments.status).toBe(409);
      expect(client.status).toBe(409);
      expect(client.headers['retry-after']).toBe(fromPayments.headers['retry-after']);
      expect(client.headers['retry-after']).toBe('1');
      expect(client.headers['content-type']).toMatch(PROBLEM);
      expect(client.body).toMatchObject({ code: 'payment_in_progress', status: 409 });
      expect(client.text).toBe(fromPayments.text);
      expect((await first).status).toBe(201);
      expect((await stack().faultCounts('orders'))[ORDERS_ROUTE]).toBe(2);
      expect((await stack().faultCounts('payments'))[PAYMENTS_ROUTE]).toBe(3);
      expect((await stack().providerCharges()).charges).toHaveLength(1);
    });
  });

  describe('with two lost responses', () => {
    const target = () => stackTarget(stack());

    afterAll(async () => {
      // Every service back at its start-up settings for the blocks after this one.
      await target().reset();
    });

    // One stack; each design switches the settings it needs with PUT /__config (the others are reset).
    itRunsEveryRow(
      chainScenario,
      [
        ['no coordinator', '2 / 3', '3'],
        ['fresh key per retry', '2 / 3', '2'],
        ['key propagated', '2 / 3', '1'],
      ],
      '%s: the client gets 201; orders saw 2 requests, payments 3, the provider charged as documented',
      target,
      ({ res, ordersRequests, paymentsRequests, ordersDropped, paymentsDropped, ledger }, row, result) => {
        const charges = Number(row.expected[1]);
        // With the key propagated, the answer that finally arrives is payments' replay of the Charge this very
        // request made (its answers were lost): still the client's first payment, so no hop marks it.
        const replayed = row.design === 'key propagated';

        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ amount: 4200, currency: 'USD', status: 'succeeded' });
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        expect(ordersRequests).toBe(2);
        expect(paymentsRequests).toBe(3);
        expect(paymentsDropped).toBe(1);
        expect(ordersDropped).toBe(1);
        expect(ledger.charges).toHaveLength(charges);
        if (replayed) expect(ledger.charges[0]?.id).toBe(res.body.providerChargeId);
        // The diagram shows both lost answers and the retries.
        expect(result.diagram?.match(/--x/g)).toHaveLength(2);
        expect(result.diagram).toContain('O->>P: POST /v1/payments');
        expect(result.diagram).toContain('(attempt 3)');
      },
    );
  });
  describe('invoice producer: gateway -> orders -> the invoices queue', () => {
    let queue: Queue | undefined;

    beforeEach(async () => {
      await stack().reset();
    });
    afterAll(async () => {
      await queue?.close();
    });

    function requestInvoice(orderId: string, body: object): request.Test {
      return request(stack().urls.gateway)
        .post(`/v1/orders/${orderId}/invoices`)
        .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body));
    }

    it('202 {deliveryId}; calling twice publishes two deliveries of the same invoice (a producer retry)', async () => {
      const orderId = await newOrder(stack());
      const first = await requestInvoice(orderId, { version: 1, email: 'billing@example.com' });
      const second = await requestInvoice(orderId, { version: 1, email: 'billing@example.com' });

      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(first.body).toEqual({ deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(second.body.deliveryId).not.toBe(first.body.deliveryId);

      const invoices = new Queue('invoices', {
        connection: { host: stack().redis.host, port: stack().redis.port },
      });
      queue = invoices;
      for (const { body } of [first, second]) {
        // Published by orders' outbox relay after the commit, not before the 202.
        const job = await waitFor(`job ${body.deliveryId} on the queue`, async () => {
          const found = await invoices.getJob(body.deliveryId);
          if (found === undefined) throw new Error('not published yet');
          return found;
        });
        expect(job?.data).toEqual({
          deliveryId: body.deliveryId,
          tenantId: DEMO_TENANTS.a.tenantId,
          orderId,
          invoiceVersion: 1,
          email: 'billing@example.com',
        });
        expect(job?.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delay: 1000 } });
      }
    });

    it('refuses a bad body with 400 validation_failed and enqueues nothing', async () => {
      const res = await requestInvoice(randomUUID(), { version: 0, email: 'not-an-email' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
      expect((await stack().faultCounts('orders'))['POST /v1/orders/:orderId/invoices']).toBeUndefined();
    });
  });
});
