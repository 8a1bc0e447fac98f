/**
 * Issue 4: a worker process is killed (SIGKILL, no shutdown hooks) after sending and before acknowledging.
 *
 * BullMQ's answer is the stalled-job check: the dead worker stops renewing the job's lock, and once the lock has
 * expired another worker's check moves the job back to wait (same job id). The workers here run with short
 * intervals so that takes about two seconds instead of a minute: WORKER_LOCK_DURATION_MS=1000 (lock renewed every
 * 500 ms while alive) and WORKER_STALLED_INTERVAL_MS=500. IDEMPOTENCY_LEASE_MS=1500 bounds how long the dead
 * owner's reservation blocks the invoice.
 *
 * The provider deduplicates here (PROVIDER_DEDUP=on): a crash between the provider's send and the saving of the
 * receipt is exactly the window only the provider key can close.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { JOB_OPTIONS, exited, freshInvoice, settled } from './jobs-harness.js';
import { startJobsStack, type JobsStack, type WorkerPool } from './jobs-stack.js';

const SHORT_LOCKS = {
  WORKER_LOCK_DURATION_MS: '1000',
  WORKER_STALLED_INTERVAL_MS: '500',
  IDEMPOTENCY_LEASE_MS: '1500',
};

const crashAt = (point: 'invoices/after-send' | 'invoices/before-ack') => ({
  method: 'JOB',
  path: point,
  at: 'after-handler',
  action: 'drop',
  times: 1,
});

describe('invoice worker: the process is killed between sending and acknowledging', () => {
  let stack: JobsStack;
  let pool: WorkerPool;

  /** A worker crashes at `point` on a fresh invoice; a second one starts once it is gone and settles the job. */
  const crashThenTakeOver = async (point: 'invoices/after-send' | 'invoices/before-ack') => {
    const doomed = await pool.start('worker-doomed');
    await doomed.setFaults([crashAt(point)]);
    const data = freshInvoice();

    const added = await pool.queue.add('invoice', data, JOB_OPTIONS);
    await exited(doomed);
    const survivor = await pool.start('worker-survivor');
    const { state, job } = await settled(pool.queue, added.id!);
    return { data, state, job, survivor, ...(await stack.provider.emails()) };
  };

  beforeAll(async () => {
    stack = await startJobsStack('on');
  });

  afterAll(async () => {
    await stack?.close();
  });

  beforeEach(async () => {
    // A queue of its own per scenario: no stalled job of one scenario can reach the next one's workers.
    pool = stack.pool('crash', SHORT_LOCKS);
    await stack.provider.reset();
  });

  afterEach(async () => {
    await pool.close();
  });

  it('killed after the receipt was saved: another worker process gets the stalled job and replays it (1 email, 1 send)', async () => {
    const { state, job, survivor, calls, emails } = await crashThenTakeOver('invoices/before-ack');

    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(job.stalledCounter).toBe(1);
    expect(job.attemptsStarted).toBe(2);
    expect(job.processedBy).toContain(`:${survivor.process.pid}`);
  });

  it('killed after the provider sent, before the receipt was saved: the provider key deduplicates the resend (1 email, 2 sends)', async () => {
    const { data, state, job, survivor, calls, emails } = await crashThenTakeOver('invoices/after-send');

    // The survivor ran the action again once the dead owner's lease expired; same provider key, so no new email.
    expect(calls).toBe(2);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.idempotencyKey).toBe(
      `mail.invoice.${data.tenantId.replaceAll('-', '')}.${data.orderId.replaceAll('-', '')}.v1`,
    );
    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(job.stalledCounter).toBe(1);
    expect(job.attemptsStarted).toBeGreaterThanOrEqual(2);
    expect(job.processedBy).toContain(`:${survivor.process.pid}`);
  });
});
