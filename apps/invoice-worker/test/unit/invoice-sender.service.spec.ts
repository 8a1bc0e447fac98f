import { describe, expect, it, jest } from '@jest/globals';
import { fingerprintOf, type CoordinateRequest, type IdempotencyCoordinator } from '@retry-safe/idempotency';
import { RuntimeSettings } from '@retry-safe/app-shell';
import { loadConfig } from '../../src/config/app-config.js';
import { workerSettings } from '../../src/config/worker-settings.js';
import { JobFaultPoint, type JobFaults } from '../../src/faults/job-faults.js';
import type { InvoiceJob } from '../../src/invoices/invoice-job.js';
import { InvoiceSender } from '../../src/invoices/invoice-sender.service.js';
import type { MailProviderClient } from '../../src/mail/mail-provider.client.js';

const job: InvoiceJob = {
  deliveryId: '0b9a5c0e-6a53-4d55-9a39-2f0d6f4b3a11',
  tenantId: 'a1b2c3d4-0000-4000-8000-00000000000a',
  orderId: '9f8e7d6c-1111-4222-8333-444455556666',
  invoiceVersion: 2,
  email: 'ada@example.com',
};
const PROVIDER_KEY = 'mail.invoice.a1b2c3d400004000800000000000000a.9f8e7d6c111142228333444455556666.v2';

function setUp(env: Record<string, string>) {
  const mail = { send: jest.fn(async (_email: unknown, _options: unknown) => ({ emailId: 'em_9' })) };
  const faults = { trip: jest.fn(async (_point: string, _job: unknown) => {}) };
  const requests: CoordinateRequest<unknown>[] = [];
  // Runs the action like a first execution would.
  const coordinator = {
    coordinateWithOutcome: jest.fn(
      async (request: CoordinateRequest<unknown>, action: (ctx: never) => Promise<unknown>) => {
        requests.push(request);
        return { value: await action({} as never), outcome: 'executed', fencingToken: 1 };
      },
    ),
  };
  const sender = new InvoiceSender(
    coordinator as unknown as IdempotencyCoordinator,
    mail as unknown as MailProviderClient,
    faults as unknown as JobFaults,
    new RuntimeSettings(workerSettings(loadConfig(env))),
  );
  return { sender, mail, faults, coordinator, requests };
}

describe('InvoiceSender', () => {
  it('sends through the coordinator: tenant-scoped operation, version key, 24 h, fingerprint of the email', async () => {
    const { sender, mail, faults, requests } = setUp({});

    await expect(sender.send(job, '7')).resolves.toEqual({
      receipt: { emailId: 'em_9' },
      outcome: 'executed',
    });

    expect(requests).toEqual([
      expect.objectContaining({
        operation: 'mail.invoice.a1b2c3d400004000800000000000000a',
        key: '9f8e7d6c111142228333444455556666.v2',
        ttlMs: 86_400_000,
        fingerprint: fingerprintOf({ email: 'ada@example.com' }),
      }),
    ]);
    expect(mail.send).toHaveBeenCalledWith(expect.objectContaining({ to: 'ada@example.com' }), {
      idempotencyKey: PROVIDER_KEY,
      requestId: job.deliveryId,
    });
    expect(faults.trip).toHaveBeenCalledWith(JobFaultPoint.AfterSend, {
      jobId: '7',
      deliveryId: job.deliveryId,
    });
  });

  it('with IDEMPOTENCY_ENABLED=false sends directly (the unprotected design)', async () => {
    const { sender, mail, coordinator } = setUp({ IDEMPOTENCY_ENABLED: 'false' });

    await expect(sender.send(job, '7')).resolves.toEqual({
      receipt: { emailId: 'em_9' },
      outcome: 'unprotected',
    });

    expect(coordinator.coordinateWithOutcome).not.toHaveBeenCalled();
    expect(mail.send).toHaveBeenCalledTimes(1);
  });
});
