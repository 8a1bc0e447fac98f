import { describe, expect, it } from '@jest/globals';
import {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
  ProblemExceptionFilter,
} from '@retry-safe/app-shell';
import { problemCatcher } from '@retry-safe/testing/nest';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { QueueUnavailableError } from '../../src/common/orders-errors.js';
import { ORDERS_PROBLEMS } from '../../src/common/orders-problems.js';

const catchWith = problemCatcher(new ProblemExceptionFilter(ORDERS_PROBLEMS));

describe('ProblemExceptionFilter (orders)', () => {
  itMapsToProblems(catchWith, [
    [new IdempotencyKeyMissingError(), 400, 'idempotency_key_missing'],
    [new IdempotencyKeyInvalidError('key is empty'), 400, 'idempotency_key_invalid'],
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
