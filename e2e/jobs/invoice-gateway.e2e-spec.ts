/**
 * Issue 4 end to end through the public API, on a whole stack from `startStack` (@retry-safe/scenarios):
 * - the jobs table from its shared definition (scenarios/src/definitions/jobs.scenario.ts, the table the runner prints): the
 *   worker sent the invoice and saved the receipt, then its acknowledgement failed, so the job is delivered again;
 *   unprotected (the worker's coordinator off, switched with `PUT /__config`) that is a second email;
 * - the client asks the gateway twice for the same invoice (a producer retry), orders publishes two deliveries,
 *   the worker sends one email.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import request from 'supertest';
import { metricSample, waitFor } from '@retry-safe/testing';
import {
  DEMO_TENANTS,
  startStack,
  type Stack,
  expectedTable,
  runRow,
  stackTarget,
  jobsScenario,
  type JobsData,
} from '@retry-safe/scenarios';
import { newOrder } from '../support/client.js';
import { rowOf } from '../support/scenario-rows.js';
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

  describe('acknowledgement fails after the receipt is saved (the jobs table)', () => {
    const target = () => stackTarget(stack);
    const metrics = async () => (await fetch(`${stack.urls.worker}/metrics`)).text();
    const completed = (text: string) => metricSample(text, 'invoice_jobs_total', { outcome: 'completed' });

    afterAll(async () => {
      await target().reset();
    });

    it('documents the table the runner prints', () => {
      expect(expectedTable(jobsScenario)).toEqual([
        ['unprotected', '2', '2', '1'],
        ['protected', '2', '1', '1'],
      ]);
    });

    it('protected: 2 deliveries, 1 email, completed with the original emailId', async () => {
      const row = rowOf(jobsScenario, 'protected');
      const before = await metrics();

      const result = await runRow(jobsScenario, row, target());
      const { accepted, deliveries, emails } = result.data as JobsData;
      const { state, job } = await settled(queue, accepted.body.deliveryId as string);

      expect(result.measured).toEqual(result.expected);
      expect(emails.calls).toBe(1);
      expect(emails.emails).toHaveLength(1);
      expect(emails.emails[0]!.to).toBe('ada@example.com');
      expect(state).toBe('completed');
      expect(job.attemptsStarted).toBe(2);
      expect(job.attemptsMade).toBe(2);
      expect(job.returnvalue).toEqual({ emailId: emails.emails[0]!.id });
      expect((job.stacktrace ?? []).join('\n')).toContain('FAULT_INJECTED');
      expect(deliveries.map((d) => [d.attempt, d.status, d.outcome ?? null, d.error ?? null])).toEqual([
        [1, 'failed', 'executed', 'FAULT_INJECTED'],
        [2, 'completed', 'replayed', null],
      ]);
      // The worker's view: one delivery retried, one completed; the coordinator ran the send once and replayed once.
      // BullMQ emits `completed` in the worker just after the state changed in Redis: poll for it.
      const after = await waitFor('the completion in the worker metrics', async () => {
        const text = await metrics();
        if (completed(text) === completed(before)) throw new Error('not counted yet');
        return text;
      });
      const delta = (name: string, labels: Record<string, string>) =>
        metricSample(after, name, labels) - metricSample(before, name, labels);
      expect(delta('invoice_jobs_total', { outcome: 'retried' })).toBe(1);
      expect(completed(after) - completed(before)).toBe(1);
      expect(delta('idempotency_events_total', { type: 'miss' })).toBe(1);
      expect(delta('idempotency_events_total', { type: 'hit' })).toBe(1);
      expect(result.diagram).toContain('W--xQ: not acknowledged (the acknowledgement failed: fault)');
      expect(result.diagram).toContain('W-->>Q: acknowledged (receipt replayed)');
    });

    it("unprotected (the worker's coordinator off): 2 deliveries, 2 emails", async () => {
      const row = rowOf(jobsScenario, 'unprotected');

      const result = await runRow(jobsScenario, row, target());
      const { accepted, emails } = result.data as JobsData;
      const { state, job } = await settled(queue, accepted.body.deliveryId as string);

      expect(result.measured).toEqual(result.expected);
      expect(emails.calls).toBe(2);
      expect(emails.emails).toHaveLength(2);
      expect(state).toBe('completed');
      expect(job.attemptsStarted).toBe(2);
      expect(job.returnvalue).toEqual({ emailId: emails.emails[1]!.id });
    });
  });

  it('asking twice for one invoice publishes two deliveries and sends one email', async () => {
    const orderId = await newOrder(stack);
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
