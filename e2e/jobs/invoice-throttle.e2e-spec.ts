/**
 * Issue 15, throttling and shutdown, on real processes: provider-sim answers 429 (a `status` fault with
 * `Retry-After`), and a worker gets SIGTERM while a send is held at the provider (a `delay` fault).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { metricSample, waitFor } from '@retry-safe/testing';
import { freshInvoice, settled } from './jobs-harness.js';
import { startJobsStack, useWorkerGroup, type JobsStack, type WorkerPool } from './jobs-stack.js';

const RETRY_AFTER_S = 1;

describe('invoice worker: the provider throttles (429 with Retry-After)', () => {
  const started = useWorkerGroup('worker-throttle', 'off', {}, { faults: true });

  it('429 three times: each invoice sent once, no attempt used, no call to the provider during a pause', async () => {
    const { stack, group } = started();
    const { queue, worker } = group;
    await stack.provider.setFaults([
      {
        method: 'POST',
        path: '/v1/emails',
        at: 'before-handler',
        action: 'status',
        status: 429,
        code: 'rate_limited',
        retryAfter: RETRY_AFTER_S,
        times: 3,
      },
    ]);
    const jobs = [freshInvoice(), freshInvoice(), freshInvoice()];
    // attempts: 1: an attempt used by the throttling would fail the job.
    for (const data of jobs) await queue.add('invoice', data, { jobId: data.deliveryId, attempts: 1 });

    const results = await Promise.all(jobs.map((data) => settled(queue, data.deliveryId, 30_000)));

    expect(results.map((r) => [r.state, r.job.attemptsMade])).toEqual(Array(3).fill(['completed', 1]));
    const { calls, emails } = await stack.provider.emails();
    expect([calls, emails.length, new Set(emails.map((e) => e.idempotencyKey)).size]).toEqual([3, 3, 3]);
    expect((await stack.provider.faults()).rules[0]!.fired).toBe(3);
    // The provider's journal holds every call, the 429s its fault rule answered included.
    const posts = (await stack.provider.requests())
      .filter((r) => r.method === 'POST')
      .sort((a, b) => a.startedAt - b.startedAt);
    expect(posts.map((r) => r.status)).toEqual([429, 429, 429, 201, 201, 201]);
    const deliveries = await worker.deliveries();
    expect(deliveries.filter((d) => d.error === 'MAIL_PROVIDER_THROTTLED')).toHaveLength(3);
    // The pause starts once the worker has the 429 (after the provider answered it) and lasts Retry-After: no job,
    // the throttled one or the two waiting, calls the provider meanwhile.
    for (const throttled of posts.filter((r) => r.status === 429)) {
      const inside = (at: number) => at > throttled.endedAt && at < throttled.endedAt + RETRY_AFTER_S * 1000;
      expect(posts.filter((r) => inside(r.startedAt))).toEqual([]);
    }
    expect(metricSample(await worker.metrics(), 'invoice_job_throttles_total')).toBe(3);
  });
});

describe('invoice worker: SIGTERM during a send', () => {
  let stack: JobsStack;
  let pool: WorkerPool;

  // A takeover in about two seconds instead of a minute (see apps/invoice-worker/README.md).
  const TAKEOVER = {
    WORKER_LOCK_DURATION_MS: '1000',
    WORKER_STALLED_INTERVAL_MS: '500',
    IDEMPOTENCY_LEASE_MS: '1500',
    WORKER_BACKOFF_BASE_MS: '100',
    WORKER_BACKOFF_CAP_MS: '500',
  };
  const holdSends = (ms: number) =>
    stack.provider.setFaults([
      { method: 'POST', path: '/v1/emails', at: 'before-handler', action: 'delay', ms, times: 1 },
    ]);
  const held = () =>
    waitFor('a send held at the provider', async () => {
      if ((await stack.provider.faults()).rules[0]?.fired !== 1) throw new Error('not yet');
    });
  /** The delivery completes within `timeoutMs`, with the one email the provider sent, in the process `pid`. */
  const expectSentOnceBy = async (deliveryId: string, timeoutMs: number, pid: number | undefined) => {
    const { state, job } = await settled(pool.queue, deliveryId, timeoutMs);
    const { emails } = await stack.provider.emails();
    expect(state).toBe('completed');
    expect(emails).toHaveLength(1);
    expect(job.returnvalue).toEqual({ emailId: emails[0]!.id });
    expect(job.processedBy).toContain(`:${pid}`);
  };

  beforeAll(async () => {
    stack = await startJobsStack('on', { faults: true });
  });

  beforeEach(async () => {
    pool = stack.pool('sigterm', TAKEOVER);
    await stack.provider.reset();
  });

  afterEach(async () => {
    await pool.close();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('the running send finishes, the job completes here, then the process exits: 1 email', async () => {
    const doomed = await pool.start('worker-sigterm');
    await holdSends(1_500);
    const data = freshInvoice();
    await pool.queue.add('invoice', data, { jobId: data.deliveryId, attempts: 1 });
    await held();

    await doomed.process.kill('SIGTERM');

    await expectSentOnceBy(data.deliveryId, 1_000, doomed.process.pid);
  });

  it('a send outlasting WORKER_SHUTDOWN_TIMEOUT_MS: the process exits anyway; the redelivery completes, 1 email', async () => {
    const SHUTDOWN_MS = 500;
    const HOLD_MS = 4_000;
    const doomed = await pool.start('worker-sigterm-bounded', {
      WORKER_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS),
    });
    await holdSends(HOLD_MS);
    const data = freshInvoice();
    await pool.queue.add('invoice', data, { jobId: data.deliveryId, attempts: 1 });
    await held();
    const signalled = Date.now();

    await doomed.process.kill('SIGTERM');

    expect(Date.now() - signalled).toBeLessThan(HOLD_MS);
    expect(await pool.queue.getJobState(data.deliveryId)).toBe('active');
    const survivor = await pool.start('worker-survivor');
    await expectSentOnceBy(data.deliveryId, 15_000, survivor.process.pid);
  });
});
