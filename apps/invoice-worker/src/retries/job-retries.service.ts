import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { DelayedError, Worker, type Job, type Queue } from 'bullmq';
import { RetryHorizonExhaustedError, codeOf } from '../common/worker-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { WorkerSettings } from '../config/worker-settings.js';
import { DEAD_LETTER_QUEUE, addDeadLetter, toDeadLetter } from '../dead-letters/dead-letter.js';
import { FailureKind, failureKindOf, failureReason, toJobFailure } from '../invoices/job-failure.js';
import { INVOICES_QUEUE } from '../invoices/invoice-job.js';
import { DeliveryOutcome, MetricsService } from '../metrics/metrics.service.js';
import { RetryMode, nextRetry, throttleDelayMs, type BackoffPolicy } from './backoff-policy.js';

/** DI token of the jitter source, a number in [0, 1) (tests pin it). */
export const RETRY_RANDOM = Symbol('RETRY_RANDOM');

/**
 * The retry policy of the invoice queue, applied when a delivery fails: it does the move in Redis the decision
 * implies, and returns the error the processor throws so that BullMQ does the rest.
 *
 * - permanent: `UnrecoverableError`, failed at once with the reason;
 * - throttled (429): the whole queue pauses for `Retry-After` (`Queue.rateLimit`, the same limiter key as the
 *   deprecated `Worker.rateLimit`) and `Worker.RateLimitError` puts the job back in `wait` without an attempt;
 * - transient, while the job has BullMQ attempts left: a normal error, so BullMQ retries it with the producer's
 *   backoff and records the failure on the job (`attemptsMade`, `stacktrace`), as it always did;
 * - transient, once they are spent: `job.moveToDelayed` at the next capped full-jitter delay and `DelayedError`
 *   (no attempt used), so a count never ends a job during an outage, the horizon does;
 * - transient past the horizon: a dead letter, then `UnrecoverableError` with `RETRY_HORIZON_EXHAUSTED`.
 *
 * The delay's exponent is the job's `attemptsStarted` (its deliveries): it needs no state of its own, and once the
 * cap is reached the exponent no longer matters.
 */
@Injectable()
export class JobRetries {
  private readonly logger = new Logger(JobRetries.name);
  private readonly policy: BackoffPolicy;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectQueue(INVOICES_QUEUE) private readonly invoices: Queue,
    @InjectQueue(DEAD_LETTER_QUEUE) private readonly deadLetters: Queue,
    private readonly metrics: MetricsService,
    // The retry mode in force: `horizon`, or a scenario's `bullmq-attempts` (`PUT /__config`).
    private readonly settings: RuntimeSettings<WorkerSettings>,
    @Optional() @Inject(RETRY_RANDOM) private readonly random: () => number = Math.random,
  ) {
    this.policy = config.worker.retry;
  }

  /** What to throw for `error`, a failure of `job`'s delivery holding the lock `token`. */
  async onFailure(job: Job, token: string | undefined, error: unknown): Promise<Error> {
    const kind = failureKindOf(error);
    if (kind === FailureKind.Permanent || this.settings.current.retryMode === RetryMode.BullmqAttempts) {
      return toJobFailure(error);
    }
    const reason = failureReason(error);
    const now = Date.now();
    const jobId = job.id ?? '';
    if (kind === FailureKind.Throttled && now < job.timestamp + this.policy.horizonMs) {
      const hint = (error as { retryAfterMs?: number }).retryAfterMs;
      const ms = throttleDelayMs(hint, this.policy);
      await this.invoices.rateLimit(ms);
      this.metrics.jobs.inc({ outcome: DeliveryOutcome.Throttled });
      this.metrics.throttles.inc();
      this.logger.warn({ msg: 'provider throttled: queue paused', jobId, pauseMs: ms });
      return Worker.RateLimitError();
    }
    if (kind === FailureKind.Transient) {
      const decision = nextRetry(now, job.timestamp, job.attemptsStarted, this.policy, this.random);
      if (decision.retry) {
        this.metrics.retries.inc({ code: codeOf(error) ?? 'UNEXPECTED_ERROR' });
        // BullMQ's `failed` event counts this one as `retried` (see the processor).
        if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) return toJobFailure(error);
        await job.moveToDelayed(decision.at, token);
        this.metrics.jobs.inc({ outcome: DeliveryOutcome.Retried });
        this.logger.warn({ msg: 'delivery failed, retried later', jobId, delayMs: decision.delayMs, reason });
        return new DelayedError(reason);
      }
    }
    const exhausted = new RetryHorizonExhaustedError(jobId, reason, { cause: error });
    const final = toJobFailure(exhausted);
    // The dead letter first, the failure second: if the worker dies in between, the job is redelivered, fails
    // past its horizon again, and the dead letter's add (same id) is a no-op.
    await addDeadLetter(this.deadLetters, toDeadLetter(job, final.message, now));
    this.metrics.deadLetters.inc();
    this.logger.error({ msg: 'retry horizon ended: job dead-lettered', jobId, reason });
    return final;
  }
}
