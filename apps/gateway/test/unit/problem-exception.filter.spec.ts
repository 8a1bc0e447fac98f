import { describe } from '@jest/globals';
import {
  IdempotencyKeyInvalidError,
  ProblemExceptionFilter,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '@retry-safe/app-shell';
import { problemCatcher } from '@retry-safe/testing/nest';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { IdempotencyKeyMissingError, UnauthorizedError } from '../../src/common/gateway-errors.js';
import { GATEWAY_PROBLEMS } from '../../src/common/gateway-problems.js';

const catchWith = problemCatcher(new ProblemExceptionFilter(GATEWAY_PROBLEMS));

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
