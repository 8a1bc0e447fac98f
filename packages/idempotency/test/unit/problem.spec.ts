import { describe, expect, it } from '@jest/globals';
import {
  IdempotencyCorruptRecordError,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  IdempotencyLeaseLostError,
  IdempotencyStoreUnavailableError,
  IdempotencyUnencodableResultError,
  IdempotencyTransactionConflictError,
  InvalidIdempotencyKeyError,
} from '../../src/index.js';
import { problemForIdempotencyError } from '../../src/nest/index.js';

const ctx = { operation: 'payment.charge.t', key: 'k' };

describe('problemForIdempotencyError', () => {
  it.each([
    [new InvalidIdempotencyKeyError("key contains ':'", ctx), 400, 'idempotency_key_invalid', {}],
    [new IdempotencyKeyReuseError('a', 'b', ctx), 422, 'idempotency_key_reused', {}],
    [new IdempotencyInProgressError(29_000, ctx), 409, 'request_in_progress', { 'Retry-After': '1' }],
    [
      new IdempotencyStoreUnavailableError('down', ctx),
      503,
      'idempotency_store_unavailable',
      { 'Retry-After': '1' },
    ],
    [new IdempotencyLeaseLostError({}, ctx), 409, 'idempotency_lease_lost', {}],
    [new IdempotencyCorruptRecordError('bad', ctx), 500, 'idempotency_record_corrupt', {}],
    [
      new IdempotencyTransactionConflictError('40001', ctx),
      503,
      'transaction_conflict',
      { 'Retry-After': '1' },
    ],
  ])('%p -> %d %s', (error, status, code, headers) => {
    expect(problemForIdempotencyError(error)).toMatchObject({ status, code, headers });
  });

  it('maps a result that cannot be stored to 500 idempotency_result_unencodable', () => {
    expect(problemForIdempotencyError(new IdempotencyUnencodableResultError('x', ctx))).toMatchObject({
      status: 500,
      code: 'idempotency_result_unencodable',
      headers: {},
    });
  });

  it('applies per-code overrides (a route publishes its own codes)', () => {
    const problem = problemForIdempotencyError(new IdempotencyInProgressError(100, ctx), {
      IDEMPOTENCY_IN_PROGRESS: { code: 'payment_in_progress', title: 'Payment in progress' },
    });
    expect(problem).toMatchObject({ status: 409, code: 'payment_in_progress', title: 'Payment in progress' });
  });

  it('recognises errors by code, not class (a second copy of the package still maps)', () => {
    const foreign = Object.assign(new Error('x'), { code: 'IDEMPOTENCY_KEY_REUSE' });
    expect(problemForIdempotencyError(foreign)).toMatchObject({ status: 422 });
  });

  it('ignores other errors', () => {
    expect(problemForIdempotencyError(new Error('boom'))).toBeUndefined();
    expect(problemForIdempotencyError({ code: 'ECONNRESET' })).toBeUndefined();
  });

  it('says why a key is invalid', () => {
    expect(
      problemForIdempotencyError(new InvalidIdempotencyKeyError("key contains ':'", ctx))?.detail,
    ).toContain("key contains ':'");
  });
});
