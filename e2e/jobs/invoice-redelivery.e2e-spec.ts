/**
 * Issue 4: republications of one invoice give one email; a corrected version is a second one.
 *
 * The provider here runs with PROVIDER_DEDUP=off (it sends on every call), so every "1 email" below is the worker's
 * coordinator at work, not the provider's deduplication. The worker group has its own BullMQ and idempotency
 * prefixes. (A redelivery after a failed acknowledgement, with and without the coordinator, is the jobs table:
 * scenarios/src/definitions/jobs.scenario.ts, run on a whole stack by invoice-gateway.e2e-spec.ts.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { JOB_OPTIONS, invoice, settled, type InvoiceJobData, type WorkerProcess } from './jobs-harness.js';
import { startJobsStack, type JobsStack, type WorkerPool } from './jobs-stack.js';

describe('invoice worker: redeliveries and republications', () => {
  let stack: JobsStack;
  let pool: WorkerPool;
  let worker: WorkerProcess;

  const tenantId = randomUUID();

  beforeAll(async () => {
    stack = await startJobsStack('off');
    pool = stack.pool('jobs');
    worker = await pool.start('worker-coordinated');
  });

  afterAll(async () => {
    await pool?.close();
    await stack?.close();
  });

  beforeEach(async () => {
    await stack.provider.reset();
    await worker.setFaults([]);
  });

  it('the producer publishes the same invoice twice (two deliveryIds): 1 email, the same receipt', async () => {
    const fields = { tenantId, orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' };

    const first = await pool.queue.add('invoice', invoice(fields), JOB_OPTIONS);
    const one = await settled(pool.queue, first.id!);
    const second = await pool.queue.add('invoice', invoice(fields), JOB_OPTIONS);
    const two = await settled(pool.queue, second.id!);

    const { calls, emails } = await stack.provider.emails();
    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(one.job.data.deliveryId).not.toBe(two.job.data.deliveryId);
    expect([one.state, two.state]).toEqual(['completed', 'completed']);
    expect(one.job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(two.job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(two.job.attemptsStarted).toBe(1);
  });

  it('version 2 is a second email; version 1 to another address fails permanently with IDEMPOTENCY_KEY_REUSE', async () => {
    const orderId = randomUUID();

    const v1 = await pool.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 1, email: 'ada@example.com' }),
      JOB_OPTIONS,
    );
    const sentV1 = await settled(pool.queue, v1.id!);
    const v2 = await pool.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 2, email: 'ada@example.com' }),
      JOB_OPTIONS,
    );
    const sentV2 = await settled(pool.queue, v2.id!);
    const elsewhere = await pool.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 1, email: 'mallory@example.com' }),
      JOB_OPTIONS,
    );
    const refused = await settled(pool.queue, elsewhere.id!);

    const { calls, emails } = await stack.provider.emails();
    expect(calls).toBe(2);
    expect(emails.map((e) => e.to)).toEqual(['ada@example.com', 'ada@example.com']);
    expect(sentV1.job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(sentV2.job.returnvalue).toEqual({ emailId: emails[1]!.id });
    expect(refused.state).toBe('failed');
    expect(refused.job.failedReason).toMatch(/^IDEMPOTENCY_KEY_REUSE: /);
    // Failed for good on its first delivery, though the job allowed more attempts.
    expect(refused.job.attemptsStarted).toBe(1);
    expect(refused.job.attemptsMade).toBe(1);
  });

  it('a malformed job fails permanently on its first delivery with a clear reason, and sends nothing', async () => {
    const malformed = {
      deliveryId: randomUUID(),
      tenantId: 'tenant-1',
      orderId: randomUUID(),
      invoiceVersion: 0,
    };

    const added = await pool.queue.add('invoice', malformed as unknown as InvoiceJobData, JOB_OPTIONS);
    const { state, job } = await settled(pool.queue, added.id!);

    expect(state).toBe('failed');
    expect(job.failedReason).toMatch(/^INVALID_INVOICE_JOB: /);
    expect(job.failedReason).toContain('tenantId: must be a UUID');
    expect(job.failedReason).toContain('invoiceVersion: must be 1 or more');
    expect(job.failedReason).toContain('email: ');
    expect(job.attemptsStarted).toBe(1);
    expect(await stack.provider.emails()).toEqual({ calls: 0, emails: [] });
  });
});
