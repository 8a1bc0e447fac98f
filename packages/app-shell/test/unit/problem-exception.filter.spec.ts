import { describe, expect, it } from '@jest/globals';
import {
  BadRequestException,
  Logger,
  HttpException,
  NotFoundException,
  type ArgumentsHost,
} from '@nestjs/common';
import { InvalidRequestError, UpstreamTimeoutError, UpstreamUnavailableError } from '@retry-safe/http-client';
import {
  IdempotencyCorruptRecordError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  InvalidIdempotencyKeyError,
} from '@retry-safe/idempotency';
import { UnsupportedMediaTypeError, ValidationFailedError } from '../../src/http/errors.js';
import { captureProblem, type SentProblem } from '@retry-safe/testing';
import { itMapsToProblems } from '@retry-safe/testing/jest';
import { downstreamProblemMapper } from '../../src/http/downstream-problem.mapper.js';
import { ProblemExceptionFilter } from '../../src/http/problem-exception.filter.js';

// The filter logs what it maps; keep the test output clean.
Logger.overrideLogger(false);

// Configured as orders is: a hop in front of payments.
function newFilter(mapError = downstreamProblemMapper('The payments service')): ProblemExceptionFilter {
  return new ProblemExceptionFilter({ serviceName: 'The orders service', mapError });
}

function catchWith(error: unknown): SentProblem {
  return captureProblem(newFilter(), error);
}

const call = { method: 'POST', path: '/v1/payments', attempts: 4 };

describe('ProblemExceptionFilter', () => {
  itMapsToProblems(catchWith, [
    [new ValidationFailedError(['amount: too small']), 400, 'validation_failed'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
  ]);

  const where = { operation: 'order.create', key: 'k-1' };
  it.each([
    [
      new IdempotencyKeyMissingError('the Idempotency-Key header is required', where),
      400,
      'idempotency_key_missing',
      'Idempotency-Key required',
      'The Idempotency-Key header is required',
      {},
    ],
    [
      new InvalidIdempotencyKeyError('key is empty', where),
      400,
      'idempotency_key_invalid',
      'Invalid Idempotency-Key',
      'The Idempotency-Key is not acceptable: key is empty',
      {},
    ],
    [
      new IdempotencyInProgressError(29_000, where),
      409,
      'request_in_progress',
      'Request in progress',
      'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
      { 'Retry-After': '1' },
    ],
    [
      new IdempotencyCorruptRecordError('bad json', where),
      500,
      'idempotency_record_corrupt',
      'Stored result unreadable',
      'The stored result for this Idempotency-Key cannot be read; nothing was done',
      {},
    ],
  ])(
    "answers the library's %p through the library's mapping: %i %s",
    (error, status, code, title, detail, headers) => {
      const sent = catchWith(error);
      expect([sent.status, sent.type, sent.headers]).toEqual([status, 'application/problem+json', headers]);
      expect(sent.body).toEqual({ type: `urn:retry-safe:problem:${code}`, title, status, detail, code });
    },
  );

  it("answers a library error before the app's mapper, with the app's overrides and missing-key detail", () => {
    const filter = new ProblemExceptionFilter({
      serviceName: 'The payments service',
      mapError: () => ({ problem: { type: 'x', title: 'x', status: 418, detail: 'x', code: 'mapped' } }),
      idempotencyOverrides: {
        IDEMPOTENCY_IN_PROGRESS: { code: 'payment_in_progress', title: 'Payment in progress' },
      },
      keyMissingDetail: 'The Idempotency-Key header is required: send one',
    });
    const busy = captureProblem(filter, new IdempotencyInProgressError(1_000, where));
    expect([busy.status, busy.body, busy.headers]).toEqual([
      409,
      expect.objectContaining({ code: 'payment_in_progress', title: 'Payment in progress' }),
      { 'Retry-After': '1' },
    ]);
    const missing = captureProblem(filter, new IdempotencyKeyMissingError('no key', where));
    expect(missing.body).toMatchObject({
      status: 400,
      code: 'idempotency_key_missing',
      detail: 'The Idempotency-Key header is required: send one',
    });
    expect(captureProblem(filter, new Error('other')).body).toMatchObject({ code: 'mapped' });
  });

  it('passes a 503 problem from payments up unchanged, with its Retry-After', () => {
    const problem = {
      type: 'urn:retry-safe:problem:idempotency_store_unavailable',
      title: 'Idempotency store unavailable',
      status: 503,
      detail: 'retry later',
      code: 'idempotency_store_unavailable',
    };
    const sent = catchWith(
      new UpstreamUnavailableError('503 after retries', {
        ...call,
        response: { status: 503, data: problem, headers: { 'retry-after': '1' } },
      }),
    );
    expect(sent.status).toBe(503);
    expect(sent.body).toEqual(problem);
    expect(sent.headers).toEqual({ 'Retry-After': '1' });
  });

  it.each([
    [500, 'idempotency_record_corrupt'],
    [500, 'internal_error'],
    [502, 'upstream_unavailable'],
  ])(
    'passes a %i %s problem from payments up with its status and code, not as a 502 of its own',
    (status, code) => {
      const problem = { type: `urn:retry-safe:problem:${code}`, title: 'T', status, detail: 'd', code };
      const sent = catchWith(
        new UpstreamUnavailableError('5xx', { ...call, response: { status, data: problem, headers: {} } }),
      );
      expect(sent.status).toBe(status);
      expect(sent.body).toEqual(problem);
      expect(sent.headers).toEqual({});
    },
  );

  it('sends x-retry-exhausted: true with what it passes up after retrying, so the caller does not retry it', () => {
    const problem = { type: 'urn:retry-safe:problem:x', title: 'T', status: 503, detail: 'd', code: 'x' };
    const retried = catchWith(
      new UpstreamUnavailableError('503', {
        ...call,
        retriesExhausted: true,
        response: { status: 503, data: problem, headers: { 'retry-after': '1' } },
      }),
    );
    expect(retried.headers).toEqual({ 'x-retry-exhausted': 'true', 'Retry-After': '1' });
    const unanswered = catchWith(new UpstreamUnavailableError('reset', { ...call, retriesExhausted: true }));
    expect(unanswered).toMatchObject({ status: 502, headers: { 'x-retry-exhausted': 'true' } });
    const late = catchWith(new UpstreamTimeoutError('deadline', { ...call, retriesExhausted: true }));
    expect(late).toMatchObject({ status: 504, headers: { 'x-retry-exhausted': 'true' } });
  });

  it('answers 502 upstream_unavailable when payments stays unreachable or answers another 5xx', () => {
    expect(catchWith(new UpstreamUnavailableError('ECONNREFUSED', call))).toMatchObject({
      status: 502,
      body: { code: 'upstream_unavailable', status: 502 },
    });
    const html502 = new UpstreamUnavailableError('502', {
      ...call,
      response: { status: 502, data: '<html>', headers: {} },
    });
    expect(catchWith(html502)).toMatchObject({ status: 502, body: { code: 'upstream_unavailable' } });
  });

  it('names the service in the 500 detail and the downstream in 502/504 details', () => {
    expect(catchWith(new Error('x')).body).toMatchObject({
      detail: 'The orders service failed unexpectedly',
    });
    expect(catchWith(new UpstreamTimeoutError('deadline', call)).body).toMatchObject({
      detail: 'The payments service did not answer in time',
    });
    expect(catchWith(new UpstreamUnavailableError('ECONNREFUSED', call)).body).toMatchObject({
      detail: 'The payments service is unavailable',
    });
  });

  it('asks the app mapper first, and falls back to the shared mapping when it answers undefined', () => {
    const teapot = { problem: { type: 't', title: 'T', status: 418, detail: 'd', code: 'teapot' } };
    const seen: unknown[] = [];
    const mapError = (error: unknown) => {
      seen.push(error);
      return error instanceof RangeError ? teapot : undefined;
    };
    const sent: Array<number | undefined> = [];
    for (const error of [new RangeError('r'), new ValidationFailedError(['a: b'])]) {
      const res = {
        raw: { headersSent: false, destroyed: false },
        header() {
          return this;
        },
        status(code: number) {
          sent.push(code);
          return this;
        },
        type() {
          return this;
        },
        send() {
          return this;
        },
      };
      const host = {
        switchToHttp: () => ({ getRequest: () => ({}), getResponse: () => res }),
      } as unknown as ArgumentsHost;
      newFilter(mapError).catch(error, host);
    }
    expect(sent).toEqual([418, 400]);
    expect(seen).toHaveLength(2);
  });

  it('answers 504 upstream_timeout when the deadline passed', () => {
    expect(catchWith(new UpstreamTimeoutError('deadline', call))).toMatchObject({
      status: 504,
      body: { code: 'upstream_timeout', status: 504 },
    });
  });

  it('maps body-parser errors by their type', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      type: 'entity.too.large',
      status: 413,
    });
    expect(catchWith(new HttpException('request entity too large', 413, { cause: tooLarge }))).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large' },
    });
    const syntax = Object.assign(new SyntaxError('Unexpected end'), {
      type: 'entity.parse.failed',
      status: 400,
    });
    expect(catchWith(new BadRequestException('Unexpected end', { cause: syntax }))).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', detail: 'The body is not valid JSON' },
    });
    const charset = Object.assign(new Error('unsupported charset "LATIN1"'), { type: 'charset.unsupported' });
    expect(catchWith(new HttpException('unsupported charset', 415, { cause: charset }))).toMatchObject({
      status: 415,
      body: { code: 'unsupported_media_type' },
    });
  });

  it('keeps the status of Nest HttpExceptions below 500', () => {
    expect(catchWith(new NotFoundException('Cannot GET /nope'))).toMatchObject({
      status: 404,
      body: { code: 'not_found', title: 'Not found' },
    });
  });

  it('answers anything else with a 500 that reveals nothing', () => {
    for (const error of [
      new Error('secret detail'),
      new InvalidRequestError('bad header', call),
      'a string',
    ]) {
      const sent = catchWith(error);
      expect(sent.status).toBe(500);
      expect(sent.body).toMatchObject({ code: 'internal_error' });
      expect(JSON.stringify(sent.body)).not.toContain('secret');
    }
  });

  it('sends nothing once the response has started or the socket is gone', () => {
    let sent = false;
    const res = { raw: { headersSent: true, destroyed: false }, status: () => (sent = true) };
    const host = {
      switchToHttp: () => ({ getRequest: () => ({}), getResponse: () => res }),
    } as unknown as ArgumentsHost;
    newFilter().catch(new ValidationFailedError(['amount: too small']), host);
    expect(sent).toBe(false);
  });
});
