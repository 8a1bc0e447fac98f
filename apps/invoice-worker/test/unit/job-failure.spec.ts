import { describe, expect, it } from '@jest/globals';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { InvoiceWorkerErrorCode } from '../../src/common/worker-errors.js';
import {
  FailureKind,
  failureKindOf,
  isPermanentFailure,
  toJobFailure,
} from '../../src/invoices/job-failure.js';

const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('toJobFailure', () => {
  it.each([
    IdempotencyErrorCode.KeyReuse,
    IdempotencyErrorCode.InvalidKey,
    IdempotencyErrorCode.CorruptRecord,
    IdempotencyErrorCode.InvalidOptions,
    InvoiceWorkerErrorCode.InvalidJob,
    InvoiceWorkerErrorCode.MailRejected,
  ])('%s fails the job for good (UnrecoverableError), code first in the reason', (code) => {
    const error = coded(code, 'details');
    const failure = toJobFailure(error);
    expect(failure.name).toBe('UnrecoverableError');
    expect(failure.message).toBe(`${code}: details`);
    expect(failure.cause).toBe(error);
    expect(isPermanentFailure(error)).toBe(true);
  });

  it.each([
    IdempotencyErrorCode.InProgress,
    IdempotencyErrorCode.StoreUnavailable,
    IdempotencyErrorCode.LeaseLost,
    InvoiceWorkerErrorCode.MailUnavailable,
    InvoiceWorkerErrorCode.FaultInjected,
  ])('%s stays a normal error, so attempts and backoff bring the job back', (code) => {
    const failure = toJobFailure(coded(code));
    expect(failure.name).toBe('RetryableJobError');
    expect(failure.message).toBe(`${code}: boom`);
  });

  it('an error without a code is retried, marked UNEXPECTED_ERROR', () => {
    expect(toJobFailure(new TypeError('x')).message).toBe('UNEXPECTED_ERROR: x');
    expect(toJobFailure('text').message).toBe('UNEXPECTED_ERROR: text');
  });
});

describe('failureKindOf', () => {
  it.each([
    [InvoiceWorkerErrorCode.InvalidJob, FailureKind.Permanent],
    [InvoiceWorkerErrorCode.MailRejected, FailureKind.Permanent],
    [InvoiceWorkerErrorCode.RetryHorizonExhausted, FailureKind.Permanent],
    [IdempotencyErrorCode.KeyReuse, FailureKind.Permanent],
    [InvoiceWorkerErrorCode.MailThrottled, FailureKind.Throttled],
    [InvoiceWorkerErrorCode.MailUnavailable, FailureKind.Transient],
    [IdempotencyErrorCode.InProgress, FailureKind.Transient],
    [IdempotencyErrorCode.StoreUnavailable, FailureKind.Transient],
    [InvoiceWorkerErrorCode.FaultInjected, FailureKind.Transient],
  ])('%s is %s', (code, kind) => {
    expect(failureKindOf(coded(code))).toBe(kind);
  });

  it('an error without a code is transient (the horizon bounds it)', () => {
    expect(failureKindOf(new TypeError('x'))).toBe(FailureKind.Transient);
  });
});
