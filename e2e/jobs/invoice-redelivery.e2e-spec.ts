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
import { startRedis, type RedisHandle } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import {
  JOB_OPTIONS,
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

interface Group {
  worker: WorkerProcess;
  queue: Queue<InvoiceJobData, InvoiceReceipt>;
}

describe('invoice worker: redeliveries and republications', () => {
  let redis: RedisHandle;
  let provider: Provider;
  let withCoordinator: Group;

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
    withCoordinator = await group('worker-coordinated', {});
  });

  afterAll(async () => {
    await withCoordinator?.queue.close();
    await withCoordinator?.worker.process.kill('SIGTERM');
    await provider?.process.kill('SIGTERM');
    await redis?.close();
  });

  beforeEach(async () => {
    await provider.reset();
    await withCoordinator.worker.setFaults([]);
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
