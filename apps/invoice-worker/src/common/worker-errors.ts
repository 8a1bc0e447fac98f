import { ServiceError, errorGuard } from '@retry-safe/app-shell/http';

/** Stable codes of invoice-worker's own errors (the coordinator's errors keep their `IDEMPOTENCY_*` codes). */
export const InvoiceWorkerErrorCode = {
  /** The job's data does not match the contract: retrying cannot fix it. */
  InvalidJob: 'INVALID_INVOICE_JOB',
  /** The mail provider refused the email with a 4xx: retrying the same request cannot fix it. */
  MailRejected: 'MAIL_PROVIDER_REJECTED',
  /** The mail provider did not answer usably after the client's retries: the job is retried later. */
  MailUnavailable: 'MAIL_PROVIDER_UNAVAILABLE',
  /** The mail provider answered 429: the whole queue slows down for its `Retry-After`, no attempt is used. */
  MailThrottled: 'MAIL_PROVIDER_THROTTLED',
  /** A job kept failing transiently until its retry horizon ended: it is moved to the dead-letter queue. */
  RetryHorizonExhausted: 'RETRY_HORIZON_EXHAUSTED',
  /** A fault rule made this step fail on purpose (scenarios only). */
  FaultInjected: 'FAULT_INJECTED',
} as const;
/** One of {@link InvoiceWorkerErrorCode}'s values. */
export type InvoiceWorkerErrorCode = (typeof InvoiceWorkerErrorCode)[keyof typeof InvoiceWorkerErrorCode];

/** Base of invoice-worker's errors: a stable `code`, a `cause`, and context for logs. */
export abstract class InvoiceWorkerError extends ServiceError<InvoiceWorkerErrorCode> {}

/** The job's data broke the contract (see `InvoiceJobSchema`). */
export class InvalidInvoiceJobError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.InvalidJob;
  constructor(
    /** One line per problem, e.g. `tenantId: must be a UUID`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`invalid invoice job: ${issues.join('; ')}`, { issues }, options);
  }
}

/** The mail provider answered 4xx (e.g. 422: its key was reused with another recipient). */
export class MailProviderRejectedError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.MailRejected;
  constructor(
    readonly status: number,
    /** The provider's problem `code`, when it sent one. */
    readonly providerCode: string | undefined,
    detail: string | undefined,
  ) {
    super(`mail provider refused the email: ${status} ${providerCode ?? ''} ${detail ?? ''}`.trim(), {
      status,
      providerCode,
    });
  }
}

/** The mail provider was unreachable, timed out, or answered 408, 425 or 5xx after the client's retries. */
export class MailProviderUnavailableError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.MailUnavailable;
  constructor(message: string, options?: ErrorOptions & { status?: number }) {
    super(`mail provider unavailable: ${message}`, { status: options?.status }, options);
  }
}

/** The mail provider answered 429 Too Many Requests. */
export class MailProviderThrottledError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.MailThrottled;
  constructor(
    /** Its `Retry-After`, in ms, when it sent a valid one. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`mail provider throttled the send (429, Retry-After ${retryAfterMs ?? 'absent'} ms)`, {
      retryAfterMs,
    });
  }
}

/** A job's transient failures outlasted its retry horizon; `cause` is the last one. */
export class RetryHorizonExhaustedError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.RetryHorizonExhausted;
  constructor(
    readonly jobId: string,
    /** The last failure's reason (`MAIL_PROVIDER_UNAVAILABLE: ...`). */
    readonly lastReason: string,
    options?: ErrorOptions,
  ) {
    super(`retry horizon ended for job ${jobId}; last failure: ${lastReason}`, { jobId }, options);
  }
}

/** Thrown by a `fail` fault rule at a job fault point. */
export class InjectedFaultError extends InvoiceWorkerError {
  readonly code = InvoiceWorkerErrorCode.FaultInjected;
  constructor(
    readonly point: string,
    options?: ErrorOptions,
  ) {
    super(`injected fault at ${point}`, { point }, options);
  }
}

/** True for invoice-worker's own errors, recognised by `code`. */
export const isInvoiceWorkerError = errorGuard(InvoiceWorkerErrorCode);

/** The `code` of any error that has a string one (this app's, the coordinator's, the HTTP client's). */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
