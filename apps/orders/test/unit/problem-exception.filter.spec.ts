import { describe, expect, it } from '@jest/globals';
import { IdempotencyKeyMissingError, InvalidIdempotencyKeyError } from '@retry-safe/idempotency';
import {
  UnsupportedMediaTypeError,
  ValidationFailedError,
  ProblemExceptionFilter,
} from '@retry-safe/app-shell/http';
import { problemCatcher } from '@retry-safe/testing/nest';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { QueueUnavailableError } from '../../src/common/orders-errors.js';
import { ORDERS_PROBLEMS } from '../../src/common/orders-problems.js';

const catchWith = problemCatcher(new ProblemExceptionFilter(ORDERS_PROBLEMS));

const where = { operation: 'order.create', key: 'k-1' };

describe('ProblemExceptionFilter (orders)', () => {
  // The library's key errors, through the library's one mapping (its detail, not the error's message).
  it.each([
    [
      new IdempotencyKeyMissingError('no key', where),
      'idempotency_key_missing',
      'Idempotency-Key required',
      'The Idempotency-Key header is required',
    ],
    [
      new InvalidIdempotencyKeyError('key is empty', where),
      'idempotency_key_invalid',
      'Invalid Idempotency-Key',
      'The Idempotency-Key is not acceptable: key is empty',
    ],
  ])('maps %p to 400 %s', (error, code, title, detail) => {
    const sent = catchWith(error);
    expect(sent.status).toBe(400);
    expect(sent.type).toBe('application/problem+json');
    expect(sent.body).toEqual({ type: `urn:retry-safe:problem:${code}`, title, status: 400, detail, code });
  });

  itMapsToProblems(catchWith, [
    [new ValidationFailedError(['amount: too small']), 400, 'validation_failed'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
  ]);

  it('answers 503 queue_unavailable with Retry-After when the queue did not take a job', () => {
    const sent = catchWith(new QueueUnavailableError({ cause: new Error('Connection is closed.') }));
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': '1' });
    expect(sent.body).toMatchObject({ code: 'queue_unavailable', status: 503 });
    expect(JSON.stringify(sent.body)).not.toContain('Connection is closed');
  });

  // Downstream relaying (503 passthrough, 502, 504), body-parser errors, HttpExceptions, the 500 and the
  // started-response case are the shared filter's: packages/app-shell/test/unit/problem-exception.filter.spec.ts.
});
