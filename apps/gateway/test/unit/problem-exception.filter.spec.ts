import { describe, expect, it } from '@jest/globals';
import {
  ProblemExceptionFilter,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '@retry-safe/app-shell/http';
import { IdempotencyKeyMissingError, InvalidIdempotencyKeyError } from '@retry-safe/idempotency';
import { problemCatcher } from '@retry-safe/testing/nest';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { GATEWAY_PROBLEMS } from '../../src/common/gateway-problems.js';

const catchWith = problemCatcher(new ProblemExceptionFilter(GATEWAY_PROBLEMS));

describe("ProblemExceptionFilter with the gateway's problems", () => {
  itMapsToProblems(catchWith, [
    [new UnauthorizedError('no token'), 401, 'unauthorized'],
    [new ValidationFailedError(['amount: too small']), 400, 'validation_failed'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
  ]);

  it.each([
    [
      new IdempotencyKeyMissingError('the Idempotency-Key header is required', {}),
      {
        type: 'urn:retry-safe:problem:idempotency_key_missing',
        title: 'Idempotency-Key required',
        status: 400,
        detail:
          'The Idempotency-Key header is required: send a unique key per payment and reuse it on every retry',
        code: 'idempotency_key_missing',
      },
    ],
    [
      new InvalidIdempotencyKeyError('key is empty', {}),
      {
        type: 'urn:retry-safe:problem:idempotency_key_invalid',
        title: 'Invalid Idempotency-Key',
        status: 400,
        detail: 'The Idempotency-Key is not acceptable: key is empty',
        code: 'idempotency_key_invalid',
      },
    ],
  ])("answers the library's key error %p with the gateway's advice for a missing one", (error, body) => {
    const sent = catchWith(error);
    expect([sent.status, sent.type, sent.headers, sent.body]).toEqual([
      400,
      'application/problem+json',
      {},
      body,
    ]);
  });

  // Downstream relaying (503 passthrough, 502, 504), body-parser errors, HttpExceptions, the 500 and the
  // started-response case are the shared filter's: packages/app-shell/test/unit/problem-exception.filter.spec.ts.
});
