import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { FaultInjector, FaultInjectionErrorCode, type FaultInjectedError } from '@retry-safe/fault-injection';
import { InjectedFaultError, codeOf } from '../common/worker-errors.js';
import { MetricsService } from '../metrics/metrics.service.js';

/**
 * Named points of the job pipeline where rules (`PUT /__faults`, method `JOB`, `at: after-handler`) can strike.
 * Rules may target one job with `match: {header: 'job-id' | 'delivery-id', value}`.
 */
export const JobFaultPoint = {
  /** Inside the idempotent action: the provider sent the email; the receipt is not saved yet. */
  AfterSend: 'invoices/after-send',
  /** After the coordinator returned (receipt saved), before the job is acknowledged. */
  BeforeAck: 'invoices/before-ack',
} as const;
/** One of {@link JobFaultPoint}'s values. */
export type JobFaultPoint = (typeof JobFaultPoint)[keyof typeof JobFaultPoint];

/** DI token of the function that kills the process for a `drop` rule (tests replace it). */
export const PROCESS_CRASHER = Symbol('PROCESS_CRASHER');
/** Ends the process at once, as a crash would: no shutdown hooks, no lock release, no acknowledgement. */
export type ProcessCrasher = () => void;

/** SIGKILL to itself: the closest a process gets to losing power. */
export const sigkillSelf: ProcessCrasher = () => {
  process.kill(process.pid, 'SIGKILL');
};

/**
 * The worker's fault points. Inert unless `FAULTS_ENABLED=true` (then the `FaultInjector` exists). Actions:
 * `status` fails the step (a normal error: the job is retried), `drop` crashes the process, `delay` holds the step.
 */
@Injectable()
export class JobFaults {
  private readonly logger = new Logger(JobFaults.name);

  constructor(
    private readonly metrics: MetricsService,
    @Inject(PROCESS_CRASHER) private readonly crash: ProcessCrasher,
    @Optional() @Inject(FaultInjector) private readonly injector?: FaultInjector,
  ) {}

  /**
   * Applies the first matching rule for `point`.
   * @throws {@link InjectedFaultError} for a `status` rule; never returns after a `drop` rule.
   */
  async trip(point: JobFaultPoint, job: { jobId: string; deliveryId: string }): Promise<void> {
    if (this.injector === undefined) return;
    try {
      await this.injector.injectAt(point, {
        headers: { 'job-id': job.jobId, 'delivery-id': job.deliveryId },
      });
    } catch (error) {
      if (codeOf(error) !== FaultInjectionErrorCode.Injected) throw error;
      const { rule } = error as FaultInjectedError;
      this.metrics.faults.inc({ point, action: rule.action });
      if (rule.action === 'drop') {
        this.logger.warn({ msg: 'fault: crashing the process', point, ...job });
        this.crash();
        // SIGKILL lands asynchronously: never let this job go on to its acknowledgement meanwhile.
        await new Promise<never>(() => {});
      }
      this.logger.warn({ msg: 'fault: failing the step', point, ...job });
      throw new InjectedFaultError(point, { cause: error });
    }
  }
}
