import { describe, expect, it } from '@jest/globals';
import {
  BadRequestException,
  Logger,
  HttpException,
  NotFoundException,
  type ArgumentsHost,
} from '@nestjs/common';
import { InvalidRequestError, UpstreamTimeoutError, UpstreamUnavailableError } from '@retry-safe/http-client';
import type { Request, Response } from 'express';
import {
  IdempotencyKeyInvalidError,
  IdempotencyKeyMissingError,
  QueueUnavailableError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '../../src/common/orders-errors.js';
import { ProblemExceptionFilter } from '../../src/common/problem-exception.filter.js';

// The filter logs what it maps; keep the test output clean.
Logger.overrideLogger(false);

interface Sent {
  status?: number;
  type?: string;
  body?: unknown;
  headers: Record<string, string>;
}

function catchWith(error: unknown): Sent {
  const sent: Sent = { headers: {} };
  const res = {
    headersSent: false,
    destroyed: false,
    setHeader: (name: string, value: string) => {
      sent.headers[name] = value;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    type(type: string) {
      sent.type = type;
      return this;
    },
    send(body: string) {
      sent.body = JSON.parse(body);
      return this;
    },
  };
  const host = {
    switchToHttp: () => ({
      getRequest: () => ({}) as Request,
      getResponse: () => res as unknown as Response,
    }),
  } as ArgumentsHost;
  new ProblemExceptionFilter().catch(error, host);
  return sent;
}

const call = { method: 'POST', path: '/v1/payments', attempts: 4 };

describe('ProblemExceptionFilter (orders)', () => {
  it.each([
    [new IdempotencyKeyMissingError(), 400, 'idempotency_key_missing'],
    [new IdempotencyKeyInvalidError('key is empty'), 400, 'idempotency_key_invalid'],
    [new ValidationFailedError(['amount: too small']), 400, 'validation_failed'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
  ])('maps %p to %i %s', (error, status, code) => {
    const sent = catchWith(error);
    expect(sent.status).toBe(status);
    expect(sent.type).toBe('application/problem+json');
    expect(sent.body).toEqual({
      type: `urn:retry-safe:problem:${code}`,
      title: expect.any(String),
      status,
      detail: error.message,
      code,
    });
  });

  it('answers 503 queue_unavailable with Retry-After when the queue did not take a job', () => {
    const sent = catchWith(new QueueUnavailableError({ cause: new Error('Connection is closed.') }));
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': '1' });
    expect(sent.body).toMatchObject({ code: 'queue_unavailable', status: 503 });
    expect(JSON.stringify(sent.body)).not.toContain('Connection is closed');
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
    const res = { headersSent: true, destroyed: false, status: () => (sent = true) };
    const host = {
      switchToHttp: () => ({ getRequest: () => ({}), getResponse: () => res }),
    } as unknown as ArgumentsHost;
    new ProblemExceptionFilter().catch(new IdempotencyKeyMissingError(), host);
    expect(sent).toBe(false);
  });
});
