import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpClientErrorCode, isHttpClientError, type HttpClientError } from '@retry-safe/http-client';
import type { Request, Response } from 'express';
import { GatewayErrorCode, isGatewayError } from './gateway-errors.js';
import { PROBLEM_CONTENT_TYPE, isProblem, problem, statusTitle, type Problem } from './problem.js';
import { requestIdOf } from './request-context.middleware.js';

/** A problem and the headers that go with it. */
interface ProblemReply {
  problem: Problem;
  headers?: Record<string, string>;
}

const byCode: Record<GatewayErrorCode, { status: number; title: string }> = {
  [GatewayErrorCode.Unauthorized]: { status: 401, title: 'Unauthorized' },
  [GatewayErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency-Key required' },
  [GatewayErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Invalid Idempotency-Key' },
  [GatewayErrorCode.ValidationFailed]: { status: 400, title: 'Invalid request' },
  [GatewayErrorCode.UnsupportedMediaType]: { status: 415, title: 'Unsupported media type' },
};

// body-parser's error types (http-errors `type`), e.g. for a body over the limit or unparsable JSON.
const bodyErrors: Record<string, { status: number; code: string; title: string; detail?: string }> = {
  'entity.parse.failed': {
    status: 400,
    code: GatewayErrorCode.ValidationFailed,
    title: 'Invalid request',
    detail: 'The body is not valid JSON',
  },
  'entity.too.large': { status: 413, code: 'payload_too_large', title: 'Payload too large' },
  'charset.unsupported': {
    status: 415,
    code: GatewayErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
  'encoding.unsupported': {
    status: 415,
    code: GatewayErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
};

/**
 * The gateway's only exception filter: every error leaves as `application/problem+json`.
 * - The gateway's own errors map by `code` (401, 400, 415).
 * - Calls to orders that failed after their retries: a 503 problem from downstream (e.g.
 *   `idempotency_store_unavailable` with `Retry-After`) passes up unchanged; anything else becomes 502
 *   `upstream_unavailable` or 504 `upstream_timeout`. (4xx answers never get here: controllers relay them.)
 * - Nest's and body-parser's HttpExceptions keep their status with a stable code; the rest is a logged 500.
 */
@Catch()
export class ProblemExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemExceptionFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    // A fault may have destroyed the socket, or the answer may have started: nothing more can be sent.
    if (res.headersSent || res.destroyed) return;
    const { problem: body, headers = {} } = this.toProblem(error, req);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }

  private toProblem(error: unknown, req: Request): ProblemReply {
    if (isGatewayError(error)) {
      const { status, title } = byCode[error.code];
      return { problem: problem(status, error.code, title, error.message) };
    }
    if (isHttpClientError(error)) return this.upstreamProblem(error, req);
    const bodyError = bodyErrorOf(error);
    if (bodyError !== undefined) {
      const { status, code, title, detail } = bodyError.mapping;
      return { problem: problem(status, code, title, detail ?? bodyError.message) };
    }
    if (error instanceof HttpException && error.getStatus() < 500) {
      const status = error.getStatus();
      const code =
        status === 404 ? 'not_found' : status === 400 ? GatewayErrorCode.ValidationFailed : `http_${status}`;
      return { problem: problem(status, code, statusTitle(status), error.message) };
    }
    this.logger.error({
      msg: 'unhandled error',
      requestId: requestIdOf(req),
      error: error instanceof Error ? error.stack : String(error),
    });
    return { problem: problem(500, 'internal_error', 'Internal error', 'The gateway failed unexpectedly') };
  }

  private upstreamProblem(error: HttpClientError, req: Request): ProblemReply {
    const last = error.response;
    if (last !== undefined && last.status === 503 && isProblem(last.data)) {
      const retryAfter = last.headers['retry-after'];
      return { problem: last.data, headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter } };
    }
    this.logger.warn({
      msg: 'upstream failed',
      requestId: requestIdOf(req),
      code: error.code,
      error: error.message,
    });
    switch (error.code) {
      case HttpClientErrorCode.UpstreamTimeout:
        return {
          problem: problem(
            504,
            'upstream_timeout',
            'Upstream timeout',
            'The orders service did not answer in time',
          ),
        };
      case HttpClientErrorCode.UpstreamUnavailable:
        return {
          problem: problem(
            502,
            'upstream_unavailable',
            'Upstream unavailable',
            'The orders service is unavailable',
          ),
        };
      default:
        return {
          problem: problem(500, 'internal_error', 'Internal error', 'The gateway failed unexpectedly'),
        };
    }
  }
}

/** body-parser's http-errors (Nest wraps them in an HttpException with the original as `cause`). */
function bodyErrorOf(error: unknown): { mapping: (typeof bodyErrors)[string]; message: string } | undefined {
  const candidates = [error, error instanceof Error ? error.cause : undefined];
  for (const candidate of candidates) {
    const type = (candidate as { type?: unknown } | undefined)?.type;
    if (typeof type === 'string' && type in bodyErrors) {
      return {
        mapping: bodyErrors[type] as (typeof bodyErrors)[string],
        message: (candidate as Error).message,
      };
    }
  }
  return undefined;
}
