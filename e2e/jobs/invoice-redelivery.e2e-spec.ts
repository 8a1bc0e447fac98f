/**
 * Issue 4: redeliveries and republications of one invoice give one email.
 *
 * The provider here runs with PROVIDER_DEDUP=off (it sends on every call), so every "1 email" below is the worker's
 * coordinator at work, not the provider's deduplication. Two worker groups share the Redis under different BullMQ
 * and idempotency prefixes: one with the coordinator, one without (IDEMPOTENCY_ENABLED=false).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startRedis, waitFor, type RedisHandle } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import {
  JOB_OPTIONS,
  invoice,
  invoiceQueue,
  sample,
  settled,
  startProvider,
  startWorker,
  uniqueTag,
  type InvoiceJobData,
  type InvoiceReceipt,
  type Provider,
  type WorkerProcess,
} from './jobs-harness.js';

/** The acknowledgement fails once, after the receipt was saved: the processor throws instead of returning. */
const ACK_FAILS_ONCE = {
  method: 'JOB',
  path: 'invoices/before-ack',
  at: 'after-handler',
  action: 'status',
  status: 500,
  code: 'ack_failed',
  times: 1,
};

interface Group {
  worker: WorkerProcess;
  queue: Queue<InvoiceJobData, InvoiceReceipt>;
}

describe('invoice worker: redeliveries and republications', () => {
  let redis: RedisHandle;
  let provider: Provider;
  let withCoordinator: Group;
  let withoutCoordinator: Group;

  const tenantId = randomUUID();

  beforeAll(async () => {
    redis = await startRedis();
    provider = await startProvider('provider-sim', 'off');
    const tag = uniqueTag();
    const group = async (name: string, env: Record<string, string>): Promise<Group> => {
      const prefix = `e2e-jobs-${tag}-${name}`;
      const worker = await startWorker({
        name,
        redisUrl: redis.url,
        providerUrl: provider.url,
        prefix,
        keyPrefix: `${prefix}:idem:`,
        env,
      });
      return { worker, queue: invoiceQueue(redis.url, prefix) };
    };
    [withCoordinator, withoutCoordinator] = await Promise.all([
      group('worker-coordinated', {}),
      group('worker-unprotected', { IDEMPOTENCY_ENABLED: 'false' }),
    ]);
  });

  afterAll(async () => {
    for (const g of [withCoordinator, withoutCoordinator]) {
      await g?.queue.close();
      await g?.worker.process.kill('SIGTERM');
    }
    await provider?.process.kill('SIGTERM');
    await redis?.close();
  });

  beforeEach(async () => {
    await provider.reset();
    await Promise.all([withCoordinator.worker.setFaults([]), withoutCoordinator.worker.setFaults([])]);
  });

  it('acknowledgement fails after the receipt is saved: 2 deliveries, 1 email, completed with the original emailId', async () => {
    await withCoordinator.worker.setFaults([ACK_FAILS_ONCE]);
    const data = invoice({ tenantId, orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' });
    const before = await withCoordinator.worker.metrics();

    const added = await withCoordinator.queue.add('invoice', data, JOB_OPTIONS);
    const { state, job } = await settled(withCoordinator.queue, added.id!);

    const { calls, emails } = await provider.emails();
    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.to).toBe('ada@example.com');
    expect(state).toBe('completed');
    expect(job.attemptsStarted).toBe(2);
    expect(job.attemptsMade).toBe(2);
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect((job.stacktrace ?? []).join('\n')).toContain('FAULT_INJECTED');
    // The worker's view: one delivery retried, one completed; the coordinator ran the send once and replayed once.
    // BullMQ emits `completed` in the worker just after the state changed in Redis: poll for it.
    const completed = 'invoice_jobs_total{outcome="completed"}';
    const after = await waitFor('the completion in the worker metrics', async () => {
      const text = await withCoordinator.worker.metrics();
      if (sample(text, completed) === sample(before, completed)) throw new Error('not counted yet');
      return text;
    });
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('invoice_jobs_total{outcome="retried"}')).toBe(1);
    expect(delta('invoice_jobs_total{outcome="completed"}')).toBe(1);
    expect(delta('idempotency_events_total{type="miss"}')).toBe(1);
    expect(delta('idempotency_events_total{type="hit"}')).toBe(1);
  });

  it('the same without the coordinator: 2 deliveries, 2 emails', async () => {
    await withoutCoordinator.worker.setFaults([ACK_FAILS_ONCE]);
    const data = invoice({ tenantId, orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' });

    const added = await withoutCoordinator.queue.add('invoice', data, JOB_OPTIONS);
    const { state, job } = await settled(withoutCoordinator.queue, added.id!);

    const { calls, emails } = await provider.emails();
    expect(calls).toBe(2);
    expect(emails).toHaveLength(2);
    expect(state).toBe('completed');
    expect(job.attemptsStarted).toBe(2);
    expect(job.returnvalue).toEqual({ emailId: emails[1]!.id });
  });

  it('the producer publishes the same invoice twice (two deliveryIds): 1 email, the same receipt', async () => {
    const fields = { tenantId, orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' };

    const first = await withCoordinator.queue.add('invoice', invoice(fields), JOB_OPTIONS);
    const one = await settled(withCoordinator.queue, first.id!);
    const second = await withCoordinator.queue.add('invoice', invoice(fields), JOB_OPTIONS);
    const two = await settled(withCoordinator.queue, second.id!);

    const { calls, emails } = await provider.emails();
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

    const v1 = await withCoordinator.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 1, email: 'ada@example.com' }),
      JOB_OPTIONS,
    );
    const sentV1 = await settled(withCoordinator.queue, v1.id!);
    const v2 = await withCoordinator.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 2, email: 'ada@example.com' }),
      JOB_OPTIONS,
    );
    const sentV2 = await settled(withCoordinator.queue, v2.id!);
    const elsewhere = await withCoordinator.queue.add(
      'invoice',
      invoice({ tenantId, orderId, invoiceVersion: 1, email: 'mallory@example.com' }),
      JOB_OPTIONS,
    );
    const refused = await settled(withCoordinator.queue, elsewhere.id!);

    const { calls, emails } = await provider.emails();
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

    const added = await withCoordinator.queue.add(
      'invoice',
      malformed as unknown as InvoiceJobData,
      JOB_OPTIONS,
    );
    const { state, job } = await settled(withCoordinator.queue, added.id!);

    expect(state).toBe('failed');
    expect(job.failedReason).toMatch(/^INVALID_INVOICE_JOB: /);
    expect(job.failedReason).toContain('tenantId: must be a UUID');
    expect(job.failedReason).toContain('invoiceVersion: must be 1 or more');
    expect(job.failedReason).toContain('email: ');
    expect(job.attemptsStarted).toBe(1);
    expect(await provider.emails()).toEqual({ calls: 0, emails: [] });
  });
});
