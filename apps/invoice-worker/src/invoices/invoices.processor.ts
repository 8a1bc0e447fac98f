import { Inject, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { withLogContext } from '@retry-safe/app-shell/telemetry';
import type { Job } from 'bullmq';
import { DeliveryJournal, preciseNow } from '../admin/delivery-journal.service.js';
import { codeOf } from '../common/worker-errors.js';
import { JobFaultPoint, JobFaults } from '../faults/job-faults.js';
import { DeliveryOutcome, MetricsService } from '../metrics/metrics.service.js';
import { JobRetries } from '../retries/job-retries.service.js';
import { INVOICES_QUEUE, parseInvoiceJob, type InvoiceReceipt } from './invoice-job.js';
import { InvoiceSender } from './invoice-sender.service.js';
import { toJobFailure } from './job-failure.js';

/** DI token of the {@link WorkerShutdown} settings. */
export const WORKER_SHUTDOWN = Symbol('WORKER_SHUTDOWN');

/** How SIGTERM ends the worker. */
export interface WorkerShutdown {
  /** `WORKER_SHUTDOWN_TIMEOUT_MS`: how long the running sends may take to finish. */
  readonly timeoutMs: number;
  /** Ends the process when they did not (`process.exit`; tests replace it). */
  readonly exit: (code: number) => void;
}

/**
 * Consumes the `invoices` queue. The worker options (lock, stalled check, concurrency) come from config: the
 * module defines a subclass decorated with them (see `InvoicesModule.forRoot`).
 */
@Processor(INVOICES_QUEUE)
export class InvoicesProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(InvoicesProcessor.name);

  constructor(
    private readonly sender: InvoiceSender,
    private readonly faults: JobFaults,
    private readonly metrics: MetricsService,
    // Records each delivery for `GET /__requests` (FAULTS_ENABLED only); absent in unit tests.
    @Optional() private readonly journal?: DeliveryJournal,
    // The retry horizon; absent (unit tests of the pipeline), failures go to BullMQ's attempts as they are.
    @Optional() private readonly retries?: JobRetries,
    // Bounded shutdown; absent, SIGTERM waits for the running sends however long they take.
    @Optional() @Inject(WORKER_SHUTDOWN) private readonly shutdown?: WorkerShutdown,
  ) {
    super();
  }

  /**
   * One delivery. Returning is the acknowledgement (BullMQ completes the job with the receipt as `returnvalue`);
   * throwing is a negative one. So the order is fixed: send, save the receipt (inside the coordinator), and only
   * then return. Acknowledging first would lose the invoice if the process died before sending. Every line
   * written while it runs carries the delivery's id as `requestId`, the job's id and the attempt.
   */
  override process(job: Job<unknown, InvoiceReceipt>, token?: string): Promise<InvoiceReceipt> {
    const jobId = job.id ?? '(no id)';
    const fields = { requestId: deliveryIdOf(job.data) ?? jobId, jobId, attempt: job.attemptsStarted };
    return withLogContext(fields, () => this.deliver(job, jobId, token));
  }

  private async deliver(
    job: Job<unknown, InvoiceReceipt>,
    jobId: string,
    token?: string,
  ): Promise<InvoiceReceipt> {
    const started = process.hrtime.bigint();
    const startedAt = preciseNow();
    let outcome: string | undefined;
    const record = (status: 'completed' | 'failed', error?: unknown): void =>
      this.journal?.record({
        requestId: deliveryIdOf(job.data) ?? jobId,
        jobId,
        attempt: job.attemptsStarted,
        startedAt,
        endedAt: preciseNow(),
        status,
        ...(outcome === undefined ? {} : { outcome }),
        ...(error === undefined ? {} : { error: codeOf(error) ?? 'UNEXPECTED_ERROR' }),
      });
    try {
      const invoice = parseInvoiceJob(job.data);
      const sent = await this.sender.send(invoice, jobId);
      const { receipt } = sent;
      outcome = sent.outcome;
      this.metrics.sends.inc({ outcome: sent.outcome });
      // The email is out and its receipt saved: from here a crash or a failed acknowledgement only costs a
      // redelivery, and that redelivery replays the receipt instead of sending again.
      await this.faults.trip(JobFaultPoint.BeforeAck, { jobId, deliveryId: invoice.deliveryId });
      this.logger.log({
        msg: 'invoice sent',
        jobId,
        deliveryId: invoice.deliveryId,
        attempt: job.attemptsStarted,
        outcome,
        emailId: receipt.emailId,
      });
      record('completed');
      return receipt;
    } catch (error) {
      record('failed', error);
      throw await this.failure(job, token, error);
    } finally {
      this.metrics.jobDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** What BullMQ is told about a failed delivery (the retry policy decides, and moves the job in Redis). */
  private async failure(job: Job, token: string | undefined, error: unknown): Promise<Error> {
    if (this.retries === undefined) return toJobFailure(error);
    try {
      return await this.retries.onFailure(job, token, error);
    } catch (policyError) {
      // Redis failed under the policy's move: an ordinary failure lets BullMQ retry (or the lock expire).
      this.logger.error({ msg: 'retry policy failed', jobId: job.id, error: String(policyError) });
      return toJobFailure(error);
    }
  }

  /** Counts acknowledgements: BullMQ emits this once the job is really moved to completed. */
  @OnWorkerEvent('completed')
  onCompleted(): void {
    this.metrics.jobs.inc({ outcome: DeliveryOutcome.Completed });
  }

  /** Counts and logs every failed delivery: `retried` (it comes back) or `failed` (for good). */
  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    // BullMQ sets `finishedOn` only when the job moved to failed for good; a retried job goes back to delayed/wait.
    const final = job === undefined || job.finishedOn !== undefined;
    this.metrics.jobs.inc({ outcome: final ? DeliveryOutcome.Failed : DeliveryOutcome.Retried });
    this.logger.warn({
      msg: final ? 'delivery failed for good' : 'delivery failed, will be retried',
      ...(job === undefined ? {} : { requestId: deliveryIdOf(job.data) ?? job.id }),
      jobId: job?.id,
      attemptsStarted: job?.attemptsStarted,
      attemptsMade: job?.attemptsMade,
      reason: error.message,
    });
  }

  /**
   * On shutdown, stop taking jobs and let the running ones finish before anything they use (the Redis client, the
   * idempotency store) closes in the later `onApplicationShutdown` hooks. Bounded: past the timeout the process
   * exits as a crash would. A send cut off that way loses no receipt: its job stays active until its lock
   * expires, the redelivery finds the coordinator's record (or its lease gone) and sends with the same provider
   * key, which the provider deduplicates.
   */
  async onModuleDestroy(): Promise<void> {
    const closed = this.worker.close().then(() => true);
    if (this.shutdown === undefined) {
      await closed;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.shutdown?.timeoutMs);
    });
    const finished = await Promise.race([closed, late]);
    clearTimeout(timer);
    if (!finished) {
      this.logger.error({
        msg: 'running sends outlasted the shutdown timeout: exiting',
        timeoutMs: this.shutdown.timeoutMs,
      });
      this.shutdown.exit(1);
    }
  }

  /** A worker-level error (lost Redis connection...): logged, BullMQ reconnects by itself. */
  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.logger.error({ msg: 'worker error', error: error.message });
  }
}

/** The `deliveryId` of a job's data, read before (or without) validating it. */
function deliveryIdOf(data: unknown): string | undefined {
  const id =
    typeof data === 'object' && data !== null ? (data as { deliveryId?: unknown }).deliveryId : undefined;
  return typeof id === 'string' ? id : undefined;
}
