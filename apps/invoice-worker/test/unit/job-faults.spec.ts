import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FaultInjector } from '@retry-safe/fault-injection';
import { JobFaultPoint, JobFaults } from '../../src/faults/job-faults.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';

const job = { jobId: '7', deliveryId: 'd-1' };
const rule = (fields: Record<string, unknown>) => ({
  method: 'JOB',
  at: 'after-handler',
  times: 1,
  ...fields,
});

class Crashed extends Error {}

function setUp(rules?: Record<string, unknown>[]) {
  const crash = jest.fn(() => {
    // A real crash never returns; the test's crash throws so the call ends.
    throw new Crashed('crashed');
  });
  const injector = rules === undefined ? undefined : new FaultInjector();
  injector?.replaceRules({ rules });
  return { faults: new JobFaults(new MetricsService(), crash, injector), crash, injector };
}

describe('JobFaults', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('is inert without FAULTS_ENABLED (no injector)', async () => {
    const { faults, crash } = setUp();
    await expect(faults.trip(JobFaultPoint.BeforeAck, job)).resolves.toBeUndefined();
    expect(crash).not.toHaveBeenCalled();
  });

  it('a status rule fails the step once with FAULT_INJECTED', async () => {
    const { faults } = setUp([
      rule({ path: 'invoices/before-ack', action: 'status', status: 500, code: 'ack_failed' }),
    ]);

    await expect(faults.trip(JobFaultPoint.BeforeAck, job)).rejects.toMatchObject({
      code: 'FAULT_INJECTED',
      point: 'invoices/before-ack',
    });
    await expect(faults.trip(JobFaultPoint.BeforeAck, job)).resolves.toBeUndefined();
  });

  it('a drop rule crashes the process and never lets the step go on', async () => {
    const { faults, crash } = setUp([rule({ path: 'invoices/after-send', action: 'drop' })]);

    await expect(faults.trip(JobFaultPoint.AfterSend, job)).rejects.toBeInstanceOf(Crashed);
    expect(crash).toHaveBeenCalledTimes(1);
  });

  it('rules fire only at their point, and can target one job by header', async () => {
    const { faults } = setUp([
      rule({
        path: 'invoices/after-send',
        action: 'status',
        status: 500,
        code: 'x',
        match: { header: 'job-id', value: '8' },
      }),
    ]);

    await expect(
      faults.trip(JobFaultPoint.BeforeAck, { jobId: '8', deliveryId: 'd' }),
    ).resolves.toBeUndefined();
    await expect(faults.trip(JobFaultPoint.AfterSend, job)).resolves.toBeUndefined();
    await expect(faults.trip(JobFaultPoint.AfterSend, { jobId: '8', deliveryId: 'd' })).rejects.toMatchObject(
      {
        code: 'FAULT_INJECTED',
      },
    );
  });

  it('a delay rule holds the step', async () => {
    const { faults } = setUp([rule({ path: 'invoices/after-send', action: 'delay', ms: 60 })]);
    const started = Date.now();
    await faults.trip(JobFaultPoint.AfterSend, job);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});
