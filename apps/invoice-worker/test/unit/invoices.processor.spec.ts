import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import type { Job } from 'bullmq';
import { JobFaultPoint, type JobFaults } from '../../src/faults/job-faults.js';
import type { InvoiceSender, SendResult } from '../../src/invoices/invoice-sender.service.js';
import { InvoicesProcessor } from '../../src/invoices/invoices.processor.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';

const data = {
  deliveryId: '0b9a5c0e-6a53-4d55-9a39-2f0d6f4b3a11',
  tenantId: 'a1b2c3d4-0000-4000-8000-00000000000a',
  orderId: '9f8e7d6c-1111-4222-8333-444455556666',
  invoiceVersion: 1,
  email: 'ada@example.com',
};

const jobOf = (jobData: unknown) =>
  ({ id: '7', data: jobData, attemptsStarted: 1, attemptsMade: 0, opts: { attempts: 5 } }) as unknown as Job;

function setUp(send: () => Promise<SendResult>, trip: JobFaults['trip'] = async () => {}) {
  const events: string[] = [];
  const sender = {
    send: jest.fn(async () => {
      const result = await send();
      events.push('sent');
      return result;
    }),
  };
  const faults = {
    trip: jest.fn(async (point: JobFaultPoint, job: { jobId: string; deliveryId: string }) => {
      events.push(`trip ${point}`);
      await trip(point, job);
    }),
  };
  const processor = new InvoicesProcessor(
    sender as unknown as InvoiceSender,
    faults as unknown as JobFaults,
    new MetricsService(),
  );
  return { processor, sender, faults, events };
}

const coded = (code: string) => Object.assign(new Error(`${code} from the coordinator`), { code });

describe('InvoicesProcessor.process', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('returns the receipt (the acknowledgement) only after the send returned and the ack fault point passed', async () => {
    const { processor, events } = setUp(async () => ({ receipt: { emailId: 'em_1' }, outcome: 'executed' }));

    await expect(processor.process(jobOf(data))).resolves.toEqual({ emailId: 'em_1' });
    expect(events).toEqual(['sent', `trip ${JobFaultPoint.BeforeAck}`]);
  });

  it('fails for good (UnrecoverableError) on a malformed job, naming every problem, without sending', async () => {
    const { processor, sender } = setUp(async () => ({ receipt: { emailId: 'em_1' }, outcome: 'executed' }));

    const failure = await processor
      .process(jobOf({ ...data, tenantId: 'x', invoiceVersion: 0 }))
      .catch((e) => e);

    expect(failure).toMatchObject({ name: 'UnrecoverableError' });
    expect(failure.message).toMatch(/^INVALID_INVOICE_JOB: /);
    expect(failure.message).toContain('tenantId: must be a UUID');
    expect(failure.message).toContain('invoiceVersion: must be 1 or more');
    expect(sender.send).not.toHaveBeenCalled();
  });

  it('IDEMPOTENCY_IN_PROGRESS: a normal error (not acknowledged, retried), the ack point never reached', async () => {
    const { processor, faults } = setUp(async () => {
      throw coded(IdempotencyErrorCode.InProgress);
    });

    const failure = await processor.process(jobOf(data)).catch((e) => e);

    expect(failure.name).not.toBe('UnrecoverableError');
    expect(failure.message).toMatch(/^IDEMPOTENCY_IN_PROGRESS: /);
    expect(faults.trip).not.toHaveBeenCalled();
  });

  it('IDEMPOTENCY_KEY_REUSE: fails for good with the code in the reason', async () => {
    const { processor } = setUp(async () => {
      throw coded(IdempotencyErrorCode.KeyReuse);
    });

    const failure = await processor.process(jobOf(data)).catch((e) => e);

    expect(failure.name).toBe('UnrecoverableError');
    expect(failure.message).toMatch(/^IDEMPOTENCY_KEY_REUSE: /);
  });

  it('a failed acknowledgement after the receipt was saved is a retryable failure', async () => {
    const { processor, sender } = setUp(
      async () => ({ receipt: { emailId: 'em_1' }, outcome: 'executed' }),
      async () => {
        throw Object.assign(new Error('injected fault at invoices/before-ack'), { code: 'FAULT_INJECTED' });
      },
    );

    const failure = await processor.process(jobOf(data)).catch((e) => e);

    expect(sender.send).toHaveBeenCalledTimes(1);
    expect(failure.name).toBe('RetryableJobError');
    expect(failure.message).toMatch(/^FAULT_INJECTED: /);
  });
});
