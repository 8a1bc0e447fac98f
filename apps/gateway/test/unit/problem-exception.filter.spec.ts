import { describe } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  IdempotencyKeyInvalidError,
  ProblemExceptionFilter,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '@retry-safe/app-shell';
import { captureProblem, type SentProblem } from '@retry-safe/testing';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { IdempotencyKeyMissingError, UnauthorizedError } from '../../src/common/gateway-errors.js';
import { GATEWAY_PROBLEMS } from '../../src/common/gateway-problems.js';

// The filter logs what it maps; keep the test output clean.
Logger.overrideLogger(false);

function catchWith(error: unknown): SentProblem {
  return captureProblem(new ProblemExceptionFilter(GATEWAY_PROBLEMS), error);
}

describe("ProblemExceptionFilter with the gateway's problems", () => {
  itMapsToProblems(catchWith, [
    [new UnauthorizedError('no token'), 401, 'unauthorized'],
    [new IdempotencyKeyMissingError(), 400, 'idempotency_key_missing'],
    [new IdempotencyKeyInvalidError('key is empty'), 400, 'idempotency_key_invalid'],
    [new ValidationFailedError(['amount: too small']), 400, 'validation_failed'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
  ]);

  // Downstream relaying (503 passthrough, 502, 504), body-parser errors, HttpExceptions, the 500 and the
  // started-response case are the shared filter's: packages/app-shell/test/unit/problem-exception.filter.spec.ts.
});
