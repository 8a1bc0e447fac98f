import { describe, expect, it } from '@jest/globals';
import { BadRequestException } from '@nestjs/common';
import { UpstreamTimeoutError, UpstreamUnavailableError } from '@retry-safe/http-client';
import {
  IdempotencyCorruptRecordError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  IdempotencyKeyReuseError,
  IdempotencyLeaseLostError,
  IdempotencyStoreUnavailableError,
  InvalidIdempotencyKeyError,
} from '@retry-safe/idempotency';
import { ValidationFailedError, ProblemExceptionFilter } from '@retry-safe/app-shell/http';
import { problemCatcher } from '@retry-safe/testing/nest';
import { PaymentRejectedError, ProviderUnavailableError } from '../../src/common/payments-errors.js';
import { PAYMENTS_PROBLEMS } from '../../src/common/payments-problems.js';

const catchWith = problemCatcher(new ProblemExceptionFilter(PAYMENTS_PROBLEMS));

const where = { operation: 'payment.charge.a000000000004000800000000000000a', key: 'k-1' };
const call = { method: 'POST', path: '/v1/charges', attempts: 1 };

describe('ProblemExceptionFilter (payments)', () => {
  it('a duplicate in flight is 409 payment_in_progress with Retry-After: 1', () => {
    const sent = catchWith(new IdempotencyInProgressError(29_000, where));
    expect(sent.status).toBe(409);
    expect(sent.type).toBe('application/problem+json');
    expect(sent.headers).toEqual({ 'Retry-After': '1' });
    expect(sent.body).toEqual({
      type: 'urn:retry-safe:problem:payment_in_progress',
      title: 'Payment in progress',
      status: 409,
      detail: expect.any(String),
      code: 'payment_in_progress',
    });
  });

  it.each([
    [new IdempotencyKeyReuseError('f1', 'f2', where), 422, 'idempotency_key_reused', {}],
    [
      new IdempotencyStoreUnavailableError('redis down', where),
      503,
      'idempotency_store_unavailable',
      { 'Retry-After': '1' },
    ],
    [new InvalidIdempotencyKeyError("key contains ':'", where), 400, 'idempotency_key_invalid', {}],
    [new IdempotencyKeyMissingError('no key', where), 400, 'idempotency_key_missing', {}],
    [new IdempotencyLeaseLostError(undefined, where), 409, 'idempotency_lease_lost', {}],
    [new IdempotencyCorruptRecordError('bad json', where), 500, 'idempotency_record_corrupt', {}],
  ])('maps the coordinator error %p to %i %s', (error, status, code, headers) => {
    const sent = catchWith(error);
    expect(sent.status).toBe(status);
    expect(sent.body).toMatchObject({ status, code, type: `urn:retry-safe:problem:${code}` });
    expect(sent.headers).toEqual(headers);
  });

  it("a request without a key: the library's 400 idempotency_key_missing, with the library's detail", () => {
    expect(catchWith(new IdempotencyKeyMissingError('no key', where)).body).toEqual({
      type: 'urn:retry-safe:problem:idempotency_key_missing',
      title: 'Idempotency-Key required',
      status: 400,
      detail: 'The Idempotency-Key header is required',
      code: 'idempotency_key_missing',
    });
  });

  it.each([
    [new ValidationFailedError(['currency: unknown']), 400, 'validation_failed'],
    [new PaymentRejectedError(400, 'validation_failed'), 422, 'payment_rejected'],
  ])('maps %p to %i %s', (error, status, code) => {
    expect(catchWith(error)).toMatchObject({ status, body: { status, code, detail: error.message } });
  });

  it('a provider that stays unavailable is 502, one that misses the deadline 504; its body is not passed on', () => {
    const unavailable = new UpstreamUnavailableError('503', {
      ...call,
      response: { status: 503, data: { code: 'provider_secret_code' }, headers: { 'retry-after': '30' } },
    });
    const sent = catchWith(unavailable);
    expect(sent).toMatchObject({ status: 502, body: { code: 'upstream_unavailable' }, headers: {} });
    expect(JSON.stringify(sent.body)).not.toContain('provider_secret_code');
    expect(catchWith(new UpstreamTimeoutError('deadline', call))).toMatchObject({
      status: 504,
      body: { code: 'upstream_timeout' },
    });
  });

  it('maps invalid JSON to 400 validation_failed and anything unknown to 500 internal_error', () => {
    const syntax = Object.assign(new SyntaxError('Unexpected end'), { type: 'entity.parse.failed' });
    expect(catchWith(new BadRequestException('x', { cause: syntax }))).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
    expect(catchWith(new TypeError('boom'))).toMatchObject({ status: 500, body: { code: 'internal_error' } });
  });

  it('the provider throttling is 503 provider_unavailable with its Retry-After and x-retry-exhausted, not 422', () => {
    const sent = catchWith(new ProviderUnavailableError(429, 3));
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': '3', 'x-retry-exhausted': 'true' });
    expect(sent.body).toMatchObject({ status: 503, code: 'provider_unavailable' });
    expect(catchWith(new PaymentRejectedError(402, 'card_declined'))).toMatchObject({
      status: 422,
      body: { code: 'payment_rejected' },
    });
  });
});
