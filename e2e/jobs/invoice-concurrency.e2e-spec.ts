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
import { metricSample } from '@retry-safe/testing';
import { JOB_OPTIONS, invoice, settled } from './jobs-harness.js';
import { startJobsStack, type JobsStack, type WorkerPool } from './jobs-stack.js';

const HOLD_AFTER_SEND = {
  method: 'JOB',
  path: 'invoices/after-send',
  at: 'after-handler',
  action: 'delay',
  ms: 800,
  times: 1,
};

describe('invoice worker: two workers take duplicate deliveries at once', () => {
  let stack: JobsStack;
  let pool: WorkerPool;

  beforeAll(async () => {
    stack = await startJobsStack('off');
    pool = stack.pool('race');
    await Promise.all(['worker-1', 'worker-2'].map((name) => pool.start(name)));
    // Whichever worker wins holds the reservation a while; the loser never reaches this point on its first try.
    await Promise.all(pool.workers.map((w) => w.setFaults([HOLD_AFTER_SEND])));
  });

  afterAll(async () => {
    await pool?.close();
    await stack?.close();
  });

  it('1 email; the loser is not acknowledged and completes on redelivery with the same receipt', async () => {
    const fields = {
      tenantId: randomUUID(),
      orderId: randomUUID(),
      invoiceVersion: 1,
      email: 'ada@example.com',
    };

    // One call, two publications: each worker (concurrency 1) takes one of them.
    const added = await pool.queue.addBulk([
      { name: 'invoice', data: invoice(fields), opts: JOB_OPTIONS },
      { name: 'invoice', data: invoice(fields), opts: JOB_OPTIONS },
    ]);
    const results = await Promise.all(added.map((job) => settled(pool.queue, job.id!)));

    const { calls, emails } = await stack.provider.emails();
    expect(calls).toBe(1);
    expect(emails).toHaveLength(1);
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed']);
    for (const { job } of results) expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });

    const [winner, loser] = [...results].sort((a, b) => a.job.attemptsStarted - b.job.attemptsStarted);
    expect(winner!.job.attemptsStarted).toBe(1);
    expect(loser!.job.attemptsStarted).toBeGreaterThanOrEqual(2);
    expect((loser!.job.stacktrace ?? []).join('\n')).toContain('IDEMPOTENCY_IN_PROGRESS');

    // Both processes took part: one sent (a miss), the other met the reservation (in_progress).
    const metrics = await Promise.all(pool.workers.map((w) => w.metrics()));
    const misses = metrics.map((m) => metricSample(m, 'idempotency_events_total', { type: 'miss' }));
    const inProgress = metrics.map((m) =>
      metricSample(m, 'idempotency_events_total', { type: 'in_progress' }),
    );
    expect([...misses].sort()).toEqual([0, 1]);
    expect(inProgress[misses.indexOf(0)]).toBeGreaterThanOrEqual(1);
  });
});
