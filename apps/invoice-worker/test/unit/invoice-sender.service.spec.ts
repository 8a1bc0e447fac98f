import 'reflect-metadata';
import { describe, expect, it, jest } from '@jest/globals';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { MemoryIdempotencyStore } from '@retry-safe/idempotency/memory';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { loadConfig } from '../../src/config/app-config.js';
import { workerSettings } from '../../src/config/worker-settings.js';
import { JobFaultPoint, JobFaults } from '../../src/faults/job-faults.js';
import type { InvoiceJob } from '../../src/invoices/invoice-job.js';
import { InvoiceSendSettings, InvoiceSender } from '../../src/invoices/invoice-sender.service.js';
import { MailProviderClient } from '../../src/mail/mail-provider.client.js';

const job: InvoiceJob = {
  deliveryId: '0b9a5c0e-6a53-4d55-9a39-2f0d6f4b3a11',
  tenantId: 'a1b2c3d4-0000-4000-8000-00000000000a',
  orderId: '9f8e7d6c-1111-4222-8333-444455556666',
  invoiceVersion: 2,
  email: 'ada@example.com',
};
const OPERATION = 'mail.invoice.a1b2c3d400004000800000000000000a';
const KEY = '9f8e7d6c111142228333444455556666.v2';

/** The sender as the worker wires it (the library's module, the settings in force), on the in-memory store. */
async function setUp(env: Record<string, string>) {
  const mail = { send: jest.fn(async (_email: unknown, _options: unknown) => ({ emailId: 'em_9' })) };
  const faults = { trip: jest.fn(async (_point: string, _job: unknown) => {}) };
  const now = Date.now();
  const store = new MemoryIdempotencyStore({ now: () => now, sweepIntervalMs: 0 });
  @Module({
    imports: [IdempotencyModule.forRoot({ store, coordinator: { inFlight: 'raise' } })],
    providers: [
      InvoiceSender,
      InvoiceSendSettings,
      { provide: RuntimeSettings, useValue: new RuntimeSettings(workerSettings(loadConfig(env))) },
      { provide: MailProviderClient, useValue: mail },
      { provide: JobFaults, useValue: faults },
    ],
  })
  class SenderTestModule {}
  const moduleRef = await Test.createTestingModule({ imports: [SenderTestModule] }).compile();
  await moduleRef.init();
  return { sender: moduleRef.get(InvoiceSender), mail, faults, store, close: () => moduleRef.close() };
}

describe('InvoiceSender', () => {
  it('sends once per version: tenant-scoped operation, version key, 24 h, the provider key; a redelivery replays', async () => {
    const { sender, mail, faults, store, close } = await setUp({});
    try {
      await expect(sender.send(job, '7')).resolves.toEqual({
        receipt: { emailId: 'em_9' },
        outcome: 'executed',
      });
      // Another delivery of the same version (a new deliveryId): the stored receipt, no second email.
      await expect(
        sender.send({ ...job, deliveryId: '5d4c3b2a-0000-4000-8000-000000000000' }, '8'),
      ).resolves.toEqual({
        receipt: { emailId: 'em_9' },
        outcome: 'replayed',
      });
      expect(store.entries()).toEqual([{ id: `${OPERATION}:${KEY}`, remainingMs: 86_400_000 }]);
      expect(mail.send).toHaveBeenCalledTimes(1);
      expect(mail.send).toHaveBeenCalledWith(expect.objectContaining({ to: 'ada@example.com' }), {
        idempotencyKey: `${OPERATION}.${KEY}`,
        requestId: job.deliveryId,
      });
      expect(faults.trip).toHaveBeenCalledWith(JobFaultPoint.AfterSend, {
        jobId: '7',
        deliveryId: job.deliveryId,
      });
      // The same version to another address: refused, nothing sent.
      await expect(sender.send({ ...job, email: 'eve@example.com' }, '9')).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSE',
      });
      expect(mail.send).toHaveBeenCalledTimes(1);
    } finally {
      await close();
    }
  });

  it('with IDEMPOTENCY_ENABLED=false sends on every delivery (the unprotected design) and stores nothing', async () => {
    const { sender, mail, store, close } = await setUp({ IDEMPOTENCY_ENABLED: 'false' });
    try {
      await expect(sender.send(job, '7')).resolves.toEqual({
        receipt: { emailId: 'em_9' },
        outcome: 'unprotected',
      });
      await expect(sender.send(job, '8')).resolves.toEqual({
        receipt: { emailId: 'em_9' },
        outcome: 'unprotected',
      });
      expect(mail.send).toHaveBeenCalledTimes(2);
      expect(store.entries()).toEqual([]);
    } finally {
      await close();
    }
  });
});
