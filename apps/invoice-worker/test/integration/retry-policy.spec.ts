/**
 * The retry policy on a real Redis and a real BullMQ, with a stub mail provider whose answers are scripted: the
 * horizon retries transient answers without using attempts, 429 pauses the whole queue for its Retry-After, a job
 * past its horizon lands in the dead-letter queue, and a re-drive sends it once. Jobs are published with
 * `attempts: 1`: any attempt BullMQ counted would fail them, so "completed" proves no attempt was used.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { shellPlatform } from '@retry-safe/app-shell';
import { CLOCK_SLACK_MS, startRedis, waitFor } from '@retry-safe/testing';
import { createTestApp } from '@retry-safe/testing/nest';
import { Queue, type Job } from 'bullmq';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';
import {
  DEAD_LETTER_QUEUE,
  DeadLetterSchema,
  addDeadLetter,
  deadLetterId,
  redrive,
  redriveDeliveryId,
} from '../../src/dead-letters/dead-letter.js';
import { WORKER_SHUTDOWN } from '../../src/invoices/invoices.processor.js';
import { startStubMailProvider, type StubMailProvider } from './stub-mail-provider.js';

const TENANT = '11111111-1111-4111-8111-111111111111';
const POLICY = { baseMs: 50, capMs: 200, horizonMs: 1_500 };
// What one delivery may take beside its backoff (BullMQ's fetch, the coordinator, the send): the allowance of the
// bounds below, and well under every window it is compared with.
const DELIVERY_ALLOWANCE_MS = 500;

interface Harness {
  app: INestApplication;
  /** The stub mail provider the worker sends to. */
  mail: StubMailProvider;
  invoices: Queue;
  deadLetters: Queue;
  /** Calls of the shutdown's exit: code, and when (epoch ms). */
  exits: { code: number; at: number }[];
  /** Closes the app (its shutdown hooks), once. */
  closeApp(): Promise<void>;
  /** Closes the queues, the app, the stub and Redis. */
  close(): Promise<void>;
}

/** A worker app on its own Redis and stub mail provider, with the queues a test needs. */
async function startHarness(env: Record<string, string>): Promise<Harness> {
  const redis = await startRedis();
  const mail = await startStubMailProvider();
  const prefix = `it-retry-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({
    REDIS_URL: redis.url,
    MAIL_PROVIDER_URL: mail.url,
    BULLMQ_PREFIX: prefix,
    IDEMPOTENCY_KEY_PREFIX: `${prefix}:idem:`,
    WORKER_BACKOFF_BASE_MS: String(POLICY.baseMs),
    WORKER_BACKOFF_CAP_MS: String(POLICY.capMs),
    WORKER_RETRY_HORIZON_MS: String(POLICY.horizonMs),
    ...env,
  });
  const exits: Harness['exits'] = [];
  const shutdown = {
    timeoutMs: config.worker.shutdownTimeoutMs,
    exit: (code: number) => exits.push({ code, at: Date.now() }),
  };
  const app = await createTestApp(AppModule.forRoot(config), {
    ...shellPlatform(),
    overrides: [[WORKER_SHUTDOWN, shutdown]],
  });
  const connection = { url: redis.url };
  const invoices = new Queue('invoices', { connection, prefix });
  const deadLetters = new Queue(DEAD_LETTER_QUEUE, { connection, prefix });
  let appClosed: Promise<void> | undefined;
  const closeApp = (): Promise<void> => (appClosed ??= app.close());
  return {
    app,
    mail,
    invoices,
    deadLetters,
    exits,
    closeApp,
    close: async () => {
      await invoices.close();
      await deadLetters.close();
      await closeApp();
      await mail.close();
      await redis.close();
    },
  };
}

async function settled(queue: Queue, id: string, timeoutMs = 10_000): Promise<{ state: string; job: Job }> {
  return waitFor(
    `job ${id}`,
    async () => {
      const state = await queue.getJobState(id);
      if (state !== 'completed' && state !== 'failed') throw new Error(state);
      return { state, job: (await queue.getJob(id))! };
    },
    { timeoutMs },
  );
}

const metricsOf = async (app: INestApplication) => (await request(app.getHttpServer()).get('/metrics')).text;
const invoice = () => ({
  deliveryId: randomUUID(),
  tenantId: TENANT,
  orderId: randomUUID(),
  invoiceVersion: 1,
  email: 'ada@example.com',
});
const keyOf = (data: { orderId: string }) =>
  `mail.invoice.${TENANT.replaceAll('-', '')}.${data.orderId.replaceAll('-', '')}.v1`;

describe('retry policy on a real Redis', () => {
  let h: Harness;
  let mail: StubMailProvider;

  beforeAll(async () => {
    // A horizon long enough for three 1 s pauses: these jobs must all end sent.
    h = await startHarness({ WORKER_RETRY_HORIZON_MS: '20000' });
    mail = h.mail;
  });

  afterAll(async () => {
    await h?.close();
  });

  beforeEach(() => {
    mail.calls.length = 0;
    mail.answers.length = 0;
    mail.respondWith(201);
  });

  it('500, 408, 425: retried with capped backoff, no attempt used, sent on the 4th delivery', async () => {
    mail.script([{ status: 500 }, { status: 408 }, { status: 425 }]);
    const added = await h.invoices.add('invoice', invoice(), { attempts: 1 });

    const { state, job } = await settled(h.invoices, added.id!);

    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ emailId: 'em_4' });
    // The successful attempt is the only one counted: with `attempts: 1` a counted failure would have failed it.
    expect(job.attemptsMade).toBe(1);
    expect(job.attemptsStarted).toBe(4);
    expect(mail.answers.map((a) => a.status)).toEqual([500, 408, 425, 201]);
    const gaps = mail.answers.slice(1).map((a, i) => a.at - mail.answers[i]!.at);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(POLICY.capMs + DELIVERY_ALLOWANCE_MS);
    const metrics = await metricsOf(h.app);
    expect(metrics).toContain('invoice_job_retries_total{code="MAIL_PROVIDER_UNAVAILABLE"} 3');
    expect(metrics).toContain('invoice_jobs_total{outcome="retried"} 3');
  });

  it('400: a refusal fails the job at once with its reason, no retry, no dead letter', async () => {
    mail.script([{ status: 400 }]);
    const added = await h.invoices.add('invoice', invoice(), { attempts: 5 });

    const { state, job } = await settled(h.invoices, added.id!);

    expect(state).toBe('failed');
    expect(job.failedReason).toMatch(/^MAIL_PROVIDER_REJECTED: mail provider refused the email: 400 refused/);
    expect(job.attemptsMade).toBe(1);
    expect(mail.calls).toHaveLength(1);
    expect(await h.deadLetters.getJob(deadLetterId(added.id!))).toBeUndefined();
  });

  it('429 three times with Retry-After: 1: sent once, no attempt used, the other jobs wait out each pause', async () => {
    const throttled = { status: 429, headers: { 'retry-after': '1' } };
    mail.script([throttled, throttled, throttled]);
    const datas = [invoice(), invoice(), invoice()];
    const jobs = [];
    for (const data of datas) jobs.push(await h.invoices.add('invoice', data, { attempts: 1 }));

    const results = await Promise.all(jobs.map((job) => settled(h.invoices, job.id!, 20_000)));

    expect(results.map((r) => r.state)).toEqual(['completed', 'completed', 'completed']);
    expect(results.map((r) => r.job.attemptsMade)).toEqual([1, 1, 1]);
    // Each invoice reached the provider's send once: 3 answers of 201, one per key.
    const sent = mail.calls.filter((_, i) => mail.answers[i]!.status === 201).map((c) => c.idempotencyKey);
    expect(sent.sort()).toEqual(datas.map(keyOf).sort());
    expect(mail.answers.map((a) => a.status)).toEqual([429, 429, 429, 201, 201, 201]);
    // Retry-After is 1 s: during each pause no job (the throttled one or the two waiting) called the provider.
    for (const [i, answer] of mail.answers.entries()) {
      if (answer.status !== 429) continue;
      const during = mail.answers.filter((a) => a.at > answer.at && a.at < answer.at + 1_000);
      expect({ pause: i, calls: during.length }).toEqual({ pause: i, calls: 0 });
    }
    expect(await metricsOf(h.app)).toContain('invoice_job_throttles_total 3');
  });

  it('invoice_queue_jobs: the jobs not yet taken, read from Redis at each scrape (a delayed one counts)', async () => {
    expect(await metricsOf(h.app)).toContain('invoice_queue_jobs 0');
    const later = await h.invoices.add('invoice', invoice(), { attempts: 1, delay: 60_000 });
    const other = await h.invoices.add('invoice', invoice(), { attempts: 1, delay: 60_000 });

    expect(await metricsOf(h.app)).toContain('invoice_queue_jobs 2');
    await later.remove();
    await other.remove();
    expect(await metricsOf(h.app)).toContain('invoice_queue_jobs 0');
  });
});

describe('retry horizon, dead letters and re-drive', () => {
  let h: Harness;
  let mail: StubMailProvider;

  beforeAll(async () => {
    h = await startHarness({});
    mail = h.mail;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('an outage past the horizon dead-letters the job; the re-drive sends it once; a second one sends nothing', async () => {
    mail.respondWith(500);
    const data = invoice();
    const added = await h.invoices.add('invoice', data, { attempts: 1 });

    const dead = await settled(h.invoices, added.id!, POLICY.horizonMs + 10_000);

    expect(dead.state).toBe('failed');
    expect(dead.job.failedReason).toMatch(
      /^RETRY_HORIZON_EXHAUSTED: retry horizon ended for job .*; last failure: MAIL_PROVIDER_UNAVAILABLE: /,
    );
    // It was retried until the horizon, not further than one last delivery past it.
    expect(dead.job.finishedOn! - dead.job.timestamp).toBeGreaterThanOrEqual(POLICY.horizonMs);
    expect(dead.job.finishedOn! - dead.job.timestamp).toBeLessThanOrEqual(
      POLICY.horizonMs + DELIVERY_ALLOWANCE_MS,
    );
    expect(dead.job.attemptsMade).toBe(1);
    const sendsDuringOutage = mail.calls.length;
    expect(sendsDuringOutage).toBeGreaterThan(2);
    const letter = DeadLetterSchema.parse((await h.deadLetters.getJob(deadLetterId(added.id!)))!.data);
    expect(letter).toMatchObject({ jobId: added.id, name: 'invoice', data, reason: dead.job.failedReason });
    expect(letter.attemptsStarted).toBe(sendsDuringOutage);
    const metrics = await metricsOf(h.app);
    expect(metrics).toContain('invoice_dead_letters_total 1');
    expect(metrics).toContain('invoice_dead_letter_jobs 1');

    mail.respondWith(201);
    const first = await redrive(h.deadLetters, h.invoices);

    const newId = redriveDeliveryId(added.id!);
    expect(first).toEqual({ redriven: [{ deadJobId: added.id, jobId: newId }], notFound: [] });
    const again = await settled(h.invoices, newId);
    expect(again.state).toBe('completed');
    expect(again.job.data).toEqual({ ...data, deliveryId: newId });
    expect(mail.calls.slice(sendsDuringOutage)).toEqual([{ idempotencyKey: keyOf(data), to: data.email }]);
    expect(await h.deadLetters.getWaitingCount()).toBe(0);
    expect(await metricsOf(h.app)).toContain('invoice_dead_letter_jobs 0');

    const second = await redrive(h.deadLetters, h.invoices);
    expect(second).toEqual({ redriven: [], notFound: [] });
    expect(await redrive(h.deadLetters, h.invoices, [added.id!])).toEqual({
      redriven: [],
      notFound: [added.id],
    });
    expect(mail.calls).toHaveLength(sendsDuringOutage + 1);
  });

  it('a re-drive that died before removing its dead letter, run again, sends nothing', async () => {
    mail.respondWith(201);
    const data = invoice();
    const sent = await h.invoices.add('invoice', data, { attempts: 1 });
    await settled(h.invoices, sent.id!);
    const calls = mail.calls.length;
    // The dead letter of a delivery of the same invoice, left behind as by a re-drive killed after its publish.
    const letter = {
      jobId: sent.id!,
      name: 'invoice',
      data,
      opts: { attempts: 1 },
      reason: 'RETRY_HORIZON_EXHAUSTED: ...',
      attemptsStarted: 3,
      publishedAt: Date.now(),
      deadAt: Date.now(),
    };
    await addDeadLetter(h.deadLetters, letter);
    const newId = redriveDeliveryId(sent.id!);

    expect(await redrive(h.deadLetters, h.invoices, [sent.id!])).toEqual({
      redriven: [{ deadJobId: sent.id, jobId: newId }],
      notFound: [],
    });
    const replayed = await settled(h.invoices, newId);
    // Already sent: the coordinator's key is the invoice version, the new delivery replays the receipt.
    expect(replayed.job.returnvalue).toEqual(
      (await h.invoices.getJob(sent.id!))!.returnvalue as Record<string, unknown>,
    );
    // The crash window: the dead letter is back, its re-publication already exists (same derived id).
    await addDeadLetter(h.deadLetters, letter);
    expect((await redrive(h.deadLetters, h.invoices)).redriven).toEqual([
      { deadJobId: sent.id, jobId: newId },
    ]);
    expect(await h.invoices.getJobCounts('completed', 'wait', 'delayed')).toMatchObject({
      wait: 0,
      delayed: 0,
    });
    expect(mail.calls).toHaveLength(calls);
  });
});

describe('shutdown', () => {
  it('waits for the running send, bounded by WORKER_SHUTDOWN_TIMEOUT_MS, then exits', async () => {
    const timeoutMs = 300;
    const h = await startHarness({ WORKER_SHUTDOWN_TIMEOUT_MS: String(timeoutMs) });
    const { mail } = h;
    try {
      mail.script([{ status: 201, delayMs: 3_000 }]);
      await h.invoices.add('invoice', invoice());
      await waitFor('the send to reach the provider', async () => {
        if (mail.calls.length === 0) throw new Error('not yet');
      });
      const started = Date.now();

      await h.closeApp();

      expect(h.exits.map((e) => e.code)).toEqual([1]);
      expect(h.exits[0]!.at - started).toBeGreaterThanOrEqual(timeoutMs - CLOCK_SLACK_MS);
      expect(h.exits[0]!.at - started).toBeLessThan(timeoutMs + DELIVERY_ALLOWANCE_MS);
    } finally {
      await h.close();
    }
  });
});
