import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { UnrecoverableError } from 'bullmq';
import { InvoiceWorkerErrorCode, codeOf } from '../common/worker-errors.js';

// Failures that another delivery cannot fix: retrying would only repeat them (or, worse, hide them).
const PERMANENT: ReadonlySet<string> = new Set([
  InvoiceWorkerErrorCode.InvalidJob,
  InvoiceWorkerErrorCode.MailRejected,
  InvoiceWorkerErrorCode.RetryHorizonExhausted,
  IdempotencyErrorCode.KeyReuse,
  IdempotencyErrorCode.InvalidKey,
  IdempotencyErrorCode.CorruptRecord,
  IdempotencyErrorCode.InvalidOptions,
]);

/** How the retry policy treats a failed delivery. */
export const FailureKind = {
  /** Another delivery cannot fix it (400, 422, a job that fails validation...): failed at once, with the reason. */
  Permanent: 'permanent',
  /** The provider answered 429: the queue slows down, the job waits without using an attempt. */
  Throttled: 'throttled',
  /** Network errors, timeouts, 408, 425, 5xx, a send in flight elsewhere...: retried within the horizon. */
  Transient: 'transient',
} as const;
/** One of {@link FailureKind}'s values. */
export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];

/**
 * Sorts a failure by `code` (never `instanceof`: errors cross package copies). Unknown errors count as transient:
 * the horizon bounds their retries, and a bug that fixes itself on redeploy loses no invoice.
 */
export function failureKindOf(error: unknown): FailureKind {
  const code = codeOf(error) ?? '';
  if (PERMANENT.has(code)) return FailureKind.Permanent;
  if (code === InvoiceWorkerErrorCode.MailThrottled) return FailureKind.Throttled;
  return FailureKind.Transient;
}

/** `<code>: <message>`: what a job's `failedReason` (and a dead letter's reason) says. */
export function failureReason(error: unknown): string {
  const code = codeOf(error) ?? 'UNEXPECTED_ERROR';
  return `${code}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Turns whatever a delivery threw into what BullMQ should see. Permanent failures become `UnrecoverableError`
 * (failed at once, attempts left unused); the rest, `IDEMPOTENCY_IN_PROGRESS` first of all, stay normal errors so
 * the job's attempts and backoff bring it back (the retry horizon decides before this, see `JobRetries`). Either
 * way the message starts with the code, so the job's `failedReason` names it.
 */
export function toJobFailure(error: unknown): Error {
  const message = failureReason(error);
  if (failureKindOf(error) === FailureKind.Permanent) {
    const permanent = new UnrecoverableError(message);
    permanent.cause = error;
    return permanent;
  }
  const retryable = new Error(message, { cause: error });
  retryable.name = 'RetryableJobError';
  return retryable;
}

/** True when `toJobFailure` would fail the job for good. */
export function isPermanentFailure(error: unknown): boolean {
  return failureKindOf(error) === FailureKind.Permanent;
}
