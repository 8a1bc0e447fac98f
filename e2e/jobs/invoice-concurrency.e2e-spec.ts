/**
 * Issue 4: two worker processes take two deliveries of one invoice at the same time.
 *
 * The coordinator runs in `raise` mode: the delivery that finds the invoice reserved fails that attempt with
 * IDEMPOTENCY_IN_PROGRESS (not acknowledged) and BullMQ brings it back after its backoff, when the receipt is
 * stored. A `delay` rule holds the winner for 800 ms after the provider sent, so the loser surely meets the
 * reservation. The provider does not deduplicate (PROVIDER_DEDUP=off): one email is the coordinator's doing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricSample, startRedis, type RedisHandle } from '@retry-safe/testing';
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

const HOLD_AFTER_SEND = {
  method: 'JOB',
  path: 'invoices/after-send',
  at: 'after-handler',
  action: 'delay',
  ms: 800,
  times: 1,
};

describe('invoice worker: two workers take duplicate deliveries at once', () => {
  let redis: RedisHandle;
  let provider: Provider;
  let queue: Queue<InvoiceJobData, InvoiceReceipt>;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    provider = await startProvider('provider-sim', 'off');
    const prefix = `e2e-race-${uniqueTag()}`;
    queue = invoiceQueue(redis.url, prefix);
    workers = await Promise.all(
      ['worker-1', 'worker-2'].map((name) =>
        startWorker({
          name,
          redisUrl: redis.url,
          providerUrl: provider.url,
          prefix,
          keyPrefix: `${prefix}:idem:`,
        }),
      ),
    );
    // Whichever worker wins holds the reservation a while; the loser never reaches this point on its first try.
    await Promise.all(workers.map((w) => w.setFaults([HOLD_AFTER_SEND])));
  });

  afterAll(async () => {
    await queue?.close();
    for (const w of workers) await w.process.kill('SIGTERM');
    await provider?.process.kill('SIGTERM');
    await redis?.close();
  });

  it('1 email; the loser is not acknowledged and completes on redelivery with the same receipt', async () => {
    const fields = {
      tenantId: randomUUID(),
      orderId: randomUUID(),
      invoiceVersion: 1,
      email: 'ada@example.com',
    };

    // One call, two publications: each worker (concurrency 1) takes one of them.
    const added = await queue.addBulk([
      { name: 'invoice', data: invoice(fields), opts: JOB_OPTIONS },
      { name: 'invoice', data: invoice(fields), opts: JOB_OPTIONS },
    ]);
    const results = await Promise.all(added.map((job) => settled(queue, job.id!)));

    const { calls, emails } = await provider.emails();
    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed']);
    for (const { job } of results) expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });

    const [winner, loser] = [...results].sort((a, b) => a.job.attemptsStarted - b.job.attemptsStarted);
    expect(winner!.job.attemptsStarted).toBe(1);
    expect(loser!.job.attemptsStarted).toBeGreaterThanOrEqual(2);
    expect((loser!.job.stacktrace ?? []).join('\n')).toContain('IDEMPOTENCY_IN_PROGRESS');

    // Both processes took part: one sent (a miss), the other met the reservation (in_progress).
    const metrics = await Promise.all(workers.map((w) => w.metrics()));
    const misses = metrics.map((m) => metricSample(m, 'idempotency_events_total', { type: 'miss' }));
    const inProgress = metrics.map((m) =>
      metricSample(m, 'idempotency_events_total', { type: 'in_progress' }),
    );
    expect([...misses].sort()).toEqual([0, 1]);
    expect(inProgress[misses.indexOf(0)]).toBeGreaterThanOrEqual(1);
  });
});
