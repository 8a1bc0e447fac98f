/**
 * Issue 15: the worker rides out a mail provider outage. provider-sim is stopped (its port refuses connections)
 * while invoices are published with the harness's BullMQ options (6 attempts, exponential from 200 ms: spent in
 * 6.2 s plus the attempts themselves), and started again after {@link OUTAGE_MS}, longer than those attempts last:
 * BullMQ alone would fail every job; the worker's horizon takes over when they are spent. The cap, base and horizon
 * are shortened by configuration; the bounds below are derived from them. The provider sends on every call
 * (dedup off), so every count of emails is the worker's.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricSample } from '@retry-safe/testing';
import type { Queue } from 'bullmq';
import {
  DEAD_LETTER_QUEUE,
  JOB_OPTIONS,
  invoice,
  freshInvoice,
  invoiceQueue,
  redriveCli,
  settled,
  type InvoiceJobData,
} from './jobs-harness.js';
import { useWorkerGroup } from './jobs-stack.js';

/** Longer than JOB_OPTIONS's attempts (200+400+800+1600+3200 ms and 6 sends): BullMQ's own would all be spent. */
const OUTAGE_MS = 10_000;
const CAP_MS = 1_000;
/** One send's budget: the mail client's attempt timeout times its three attempts. */
const SEND_BUDGET_MS = 3 * 500;
const WORKER_ENV = {
  WORKER_BACKOFF_BASE_MS: '100',
  WORKER_BACKOFF_CAP_MS: String(CAP_MS),
  MAIL_PROVIDER_TIMEOUT_MS: '500',
};

const keyOf = (job: InvoiceJobData) =>
  `mail.invoice.${job.tenantId.replaceAll('-', '')}.${job.orderId.replaceAll('-', '')}.v${job.invoiceVersion}`;

describe('invoice worker: a mail provider outage', () => {
  const started = useWorkerGroup('worker-outage', 'off', WORKER_ENV);

  it('10 invoices during the outage: 0 failed, 10 emails after recovery, each once, within the cap of recovery', async () => {
    const { stack, group } = started();
    const { queue, worker } = group;
    await stack.provider.process.kill('SIGTERM');
    const tenantId = randomUUID();
    const jobs = Array.from({ length: 10 }, () =>
      invoice({ tenantId, orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' }),
    );
    for (const data of jobs) await queue.add('invoice', data, { ...JOB_OPTIONS, jobId: data.deliveryId });

    await sleep(OUTAGE_MS);
    expect(await queue.getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 0 });
    await stack.provider.process.start();
    const recoveredAt = Date.now();
    const results = await Promise.all(jobs.map((job) => settled(queue, job.deliveryId, 30_000)));

    expect(results.map((r) => r.state)).toEqual(Array(10).fill('completed'));
    // Every BullMQ attempt was used (5 failed in the outage, recorded on the job, and the one that sent, at the
    // 6th try or after the horizon's retries, which use none): BullMQ alone would have failed these jobs.
    expect(results.map((r) => r.job.attemptsMade)).toEqual(Array(10).fill(JOB_OPTIONS.attempts));
    const { calls, emails } = await stack.provider.emails();
    expect(calls).toBe(10);
    expect(emails.map((e) => e.idempotencyKey).sort()).toEqual(jobs.map(keyOf).sort());
    // Every job was waiting at most one capped backoff when the provider came back, then took one send.
    const latest = Math.max(...emails.map((e) => Date.parse(e.createdAt)));
    expect(latest - recoveredAt).toBeLessThanOrEqual(CAP_MS + SEND_BUDGET_MS);
    const metrics = await worker.metrics();
    expect(
      metricSample(metrics, 'invoice_job_retries_total', { code: 'MAIL_PROVIDER_UNAVAILABLE' }),
    ).toBeGreaterThan(10);
    expect(metricSample(metrics, 'invoice_dead_letters_total')).toBe(0);
  });
});

describe('invoice worker: past the retry horizon, the dead-letter queue and `pnpm invoices:redrive`', () => {
  const HORIZON_MS = 2_000;
  let deadLetters: Queue;
  let cliEnv: Record<string, string>;
  // Before the group's own afterAll (hooks run in order): the queue closes while its Redis is still there.
  afterAll(async () => {
    await deadLetters?.close();
  });
  const started = useWorkerGroup('worker-horizon', 'off', {
    ...WORKER_ENV,
    WORKER_BACKOFF_CAP_MS: '300',
    WORKER_RETRY_HORIZON_MS: String(HORIZON_MS),
  });
  beforeAll(() => {
    const { stack, group } = started();
    deadLetters = invoiceQueue(stack.redis.url, group.prefix, DEAD_LETTER_QUEUE) as unknown as Queue;
    cliEnv = { REDIS_URL: stack.redis.url, BULLMQ_PREFIX: group.prefix };
  });

  it('the job is dead-lettered with its last reason; the re-drive sends it once; a second re-drive sends nothing', async () => {
    const { stack, group } = started();
    const { queue, worker } = group;
    await stack.provider.process.kill('SIGTERM');
    const data = freshInvoice();
    const added = await queue.add('invoice', data, JOB_OPTIONS);

    const dead = await settled(queue, added.id!, HORIZON_MS + 10_000);
    expect(dead.state).toBe('failed');
    expect(dead.job.failedReason).toMatch(
      /^RETRY_HORIZON_EXHAUSTED: retry horizon ended for job .*; last failure: MAIL_PROVIDER_UNAVAILABLE: /,
    );
    expect(await deadLetters.getWaitingCount()).toBe(1);
    expect(metricSample(await worker.metrics(), 'invoice_dead_letter_jobs')).toBe(1);

    await stack.provider.process.start();
    const first = await redriveCli(cliEnv, ['--all']);
    expect(first.code).toBe(0);
    expect(first.report.redriven).toHaveLength(1);
    expect(first.report.redriven[0]!.deadJobId).toBe(added.id);
    const redriven = await settled(queue, first.report.redriven[0]!.jobId);
    expect(redriven.state).toBe('completed');
    const { calls, emails } = await stack.provider.emails();
    expect([calls, emails.map((e) => e.idempotencyKey)]).toEqual([1, [keyOf(data)]]);
    expect(redriven.job.returnvalue).toEqual({ emailId: emails[0]!.id });

    const second = await redriveCli(cliEnv, ['--all']);
    expect(second).toEqual({ code: 0, report: { redriven: [], notFound: [] } });
    const byId = await redriveCli(cliEnv, [added.id!]);
    expect(byId).toEqual({ code: 1, report: { redriven: [], notFound: [added.id] } });
    expect((await stack.provider.emails()).calls).toBe(1);
    expect(await deadLetters.getWaitingCount()).toBe(0);
  });
});
