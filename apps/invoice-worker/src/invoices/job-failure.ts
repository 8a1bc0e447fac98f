import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { UnrecoverableError } from 'bullmq';
import { InvoiceWorkerErrorCode, codeOf } from '../common/worker-errors.js';

// Failures that another delivery cannot fix: retrying would only repeat them (or, worse, hide them).
const PERMANENT: ReadonlySet<string> = new Set([
  InvoiceWorkerErrorCode.InvalidJob,
  InvoiceWorkerErrorCode.MailRejected,
  IdempotencyErrorCode.KeyReuse,
  IdempotencyErrorCode.InvalidKey,
  IdempotencyErrorCode.CorruptRecord,
  IdempotencyErrorCode.InvalidOptions,
]);

/**
 * Turns whatever a delivery threw into what BullMQ should see, deciding by `code` (never `instanceof`: errors
 * cross package copies). Permanent failures become `UnrecoverableError` (failed at once, attempts left unused);
 * the rest, `IDEMPOTENCY_IN_PROGRESS` first of all, stay normal errors so the job's attempts and backoff bring it
 * back. Either way the message starts with the code, so the job's `failedReason` names it.
 */
export function toJobFailure(error: unknown): Error {
  const code = codeOf(error) ?? 'UNEXPECTED_ERROR';
  const message = `${code}: ${error instanceof Error ? error.message : String(error)}`;
  if (PERMANENT.has(code)) {
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
  return PERMANENT.has(codeOf(error) ?? '');
}
