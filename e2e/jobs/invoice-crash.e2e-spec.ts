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
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import {
  JOB_OPTIONS,
  exited,
  invoice,
  invoiceQueue,
  settled,
  startProvider,
  startWorker,
  uniqueTag,
  type InvoiceJobData,
  type InvoiceReceipt,
  type Provider,
  type WorkerProcess,
} from './jobs-harness.js';

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
  let redis: RedisHandle;
  let provider: Provider;
  let queue: Queue<InvoiceJobData, InvoiceReceipt>;
  let workers: WorkerProcess[] = [];
  let prefix: string;

  const worker = async (name: string): Promise<WorkerProcess> => {
    const started = await startWorker({
      name,
      redisUrl: redis.url,
      providerUrl: provider.url,
      prefix,
      keyPrefix: `${prefix}:idem:`,
      env: SHORT_LOCKS,
    });
    workers.push(started);
    return started;
  };

  beforeAll(async () => {
    redis = await startRedis();
    provider = await startProvider('provider-sim', 'on');
  });

  afterAll(async () => {
    await provider?.process.kill('SIGTERM');
    await redis?.close();
  });

  beforeEach(async () => {
    // A queue of its own per scenario: no stalled job of one scenario can reach the next one's workers.
    prefix = `e2e-crash-${uniqueTag()}`;
    queue = invoiceQueue(redis.url, prefix);
    await provider.reset();
  });

  afterEach(async () => {
    await queue.close();
    for (const w of workers) await w.process.kill('SIGTERM');
    workers = [];
  });

  it('killed after the receipt was saved: another worker process gets the stalled job and replays it (1 email, 1 send)', async () => {
    const doomed = await worker('worker-doomed');
    await doomed.setFaults([crashAt('invoices/before-ack')]);
    const data = invoice({
      tenantId: randomUUID(),
      orderId: randomUUID(),
      invoiceVersion: 1,
      email: 'ada@example.com',
    });

    const added = await queue.add('invoice', data, JOB_OPTIONS);
    await exited(doomed);
    const survivor = await worker('worker-survivor');
    const { state, job } = await settled(queue, added.id!);

    const { calls, emails } = await provider.emails();
    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(job.stalledCounter).toBe(1);
    expect(job.attemptsStarted).toBe(2);
    expect(job.processedBy).toContain(`:${survivor.process.pid}`);
  });

  it('killed after the provider sent, before the receipt was saved: the provider key deduplicates the resend (1 email, 2 sends)', async () => {
    const doomed = await worker('worker-doomed');
    await doomed.setFaults([crashAt('invoices/after-send')]);
    const data = invoice({
      tenantId: randomUUID(),
      orderId: randomUUID(),
      invoiceVersion: 1,
      email: 'ada@example.com',
    });

    const added = await queue.add('invoice', data, JOB_OPTIONS);
    await exited(doomed);
    const survivor = await worker('worker-survivor');
    const { state, job } = await settled(queue, added.id!);

    const { calls, emails } = await provider.emails();
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
