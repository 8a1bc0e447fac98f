/**
 * Issue 4 end to end through the public API: the client asks the gateway twice for the same invoice (a producer
 * retry), orders publishes two deliveries, the worker sends one email. The whole stack comes from e2e/support.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import request from 'supertest';
import { DEMO_TENANTS, startStack, type Stack } from '../support/stack.js';
import {
  INVOICES_QUEUE,
  settled,
  type InvoiceJobData,
  type InvoiceReceipt,
  type SentEmail,
} from './jobs-harness.js';

describe('invoices through the gateway', () => {
  let stack: Stack;
  let queue: Queue<InvoiceJobData, InvoiceReceipt>;

  beforeAll(async () => {
    stack = await startStack({ worker: true });
    // orders and the worker run with the default BullMQ prefix on the stack's private Redis.
    queue = new Queue<InvoiceJobData, InvoiceReceipt>(INVOICES_QUEUE, {
      connection: { url: stack.redis.url },
    });
  });

  afterAll(async () => {
    await queue?.close();
    await stack?.close();
  });

  it('asking twice for one invoice publishes two deliveries and sends one email', async () => {
    const orderId = randomUUID();
    const ask = () =>
      request(stack.urls.gateway)
        .post(`/v1/orders/${orderId}/invoices`)
        .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ version: 1, email: 'ada@example.com' }));

    const first = await ask();
    const second = await ask();

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.body.deliveryId).not.toBe(second.body.deliveryId);
    const jobs = await Promise.all(
      [first, second].map((res) => settled(queue, res.body.deliveryId as string)),
    );
    const ledger = (await (await fetch(`${stack.urls.provider}/v1/emails`)).json()) as {
      emails: SentEmail[];
    };
    expect(ledger.emails).toHaveLength(1);
    expect(ledger.emails[0]!.to).toBe('ada@example.com');
    for (const { state, job } of jobs) {
      expect(state).toBe('completed');
      expect(job.data.tenantId).toBe(DEMO_TENANTS.a.tenantId);
      expect(job.returnvalue).toEqual({ emailId: ledger.emails[0]!.id });
    }
  });
});
