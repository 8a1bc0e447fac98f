import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { startRedis, waitFor, type RedisHandle } from '@retry-safe/testing';
import { Queue, type Job } from 'bullmq';
import request from 'supertest';
import { createWorkerApp } from './invoice-worker.app.js';
import { startStubMailProvider, type StubMailProvider } from './stub-mail-provider.js';

async function settled(queue: Queue, id: string): Promise<{ state: string; job: Job }> {
  return waitFor(`job ${id}`, async () => {
    const state = await queue.getJobState(id);
    if (state !== 'completed' && state !== 'failed') throw new Error(state);
    // Read the job after it settled, or its returnvalue and counters could be from before.
    return { state, job: (await queue.getJob(id))! };
  });
}

describe('invoice-worker on a real Redis', () => {
  let redis: RedisHandle;
  let mail: StubMailProvider;
  let app: INestApplication;
  let queue: Queue;
  const prefix = `it-worker-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    redis = await startRedis();
    mail = await startStubMailProvider();
    app = await createWorkerApp({
      REDIS_URL: redis.url,
      MAIL_PROVIDER_URL: mail.url,
      BULLMQ_PREFIX: prefix,
      IDEMPOTENCY_KEY_PREFIX: `${prefix}:idem:`,
    });
    queue = new Queue('invoices', { connection: { url: redis.url }, prefix });
  });

  afterAll(async () => {
    await queue?.close();
    await app?.close();
    await mail?.close();
    await redis?.close();
  });

  const invoice = (fields: { orderId: string; invoiceVersion: number; email: string }) => ({
    deliveryId: randomUUID(),
    tenantId: '11111111-1111-4111-8111-111111111111',
    ...fields,
  });

  it('sends an invoice once; a second publication replays the receipt; metrics count both', async () => {
    const orderId = randomUUID();
    const first = await queue.add(
      'invoice',
      invoice({ orderId, invoiceVersion: 1, email: 'ada@example.com' }),
    );
    const one = await settled(queue, first.id!);
    const second = await queue.add(
      'invoice',
      invoice({ orderId, invoiceVersion: 1, email: 'ada@example.com' }),
    );
    const two = await settled(queue, second.id!);

    expect([one.state, two.state]).toEqual(['completed', 'completed']);
    expect(one.job.returnvalue).toEqual({ emailId: 'em_1' });
    expect(two.job.returnvalue).toEqual({ emailId: 'em_1' });
    expect(mail.calls).toEqual([
      {
        idempotencyKey: `mail.invoice.11111111111141118111111111111111.${orderId.replaceAll('-', '')}.v1`,
        to: 'ada@example.com',
      },
    ]);
    // BullMQ emits `completed` just after the state changed in Redis: poll for the second one.
    const metrics = await waitFor('two completions in the metrics', async () => {
      const text = (await request(app.getHttpServer()).get('/metrics')).text;
      if (!text.includes('invoice_jobs_total{outcome="completed"} 2')) throw new Error('not yet');
      return text;
    });
    expect(metrics).toContain('idempotency_events_total{type="miss"} 1');
    expect(metrics).toContain('idempotency_events_total{type="hit"} 1');
    expect(metrics).toContain('invoice_sends_total{outcome="replayed"} 1');
  });

  it('a 4xx from the mail provider fails the job for good with MAIL_PROVIDER_REJECTED', async () => {
    mail.respondWith(422);
    try {
      const added = await queue.add(
        'invoice',
        invoice({ orderId: randomUUID(), invoiceVersion: 1, email: 'ada@example.com' }),
        { attempts: 3 },
      );
      const { state, job } = await settled(queue, added.id!);
      expect(state).toBe('failed');
      expect(job.failedReason).toMatch(
        /^MAIL_PROVIDER_REJECTED: mail provider refused the email: 422 refused/,
      );
      expect(job.attemptsMade).toBe(1);
      await waitFor('the failure in the metrics', async () => {
        const text = (await request(app.getHttpServer()).get('/metrics')).text;
        if (!text.includes('invoice_jobs_total{outcome="failed"} 1')) throw new Error('not yet');
      });
    } finally {
      mail.respondWith(201);
    }
  });

  it('GET /health checks Redis', async () => {
    const res = await request(app.getHttpServer()).get('/health');
    expect([res.status, res.body]).toEqual([200, { status: 'ok', redis: 'up' }]);
  });

  it('has no fault routes unless FAULTS_ENABLED=true', async () => {
    expect((await request(app.getHttpServer()).get('/__faults')).status).toBe(404);
  });
});
