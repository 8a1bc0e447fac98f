import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpClientErrorCode, isHttpClientError } from '@retry-safe/http-client';
import { IdempotencyErrorCode } from '@retry-safe/idempotency';
import { problemForIdempotencyError } from '@retry-safe/idempotency/nest';
import type { Request, Response } from 'express';
import { PaymentsErrorCode, isPaymentsError } from './payments-errors.js';
import { PROBLEM_CONTENT_TYPE, problem, statusTitle, type Problem } from './problem.js';
import { requestIdOf } from './request-context.middleware.js';

/** A problem and the headers that go with it. */
interface ProblemReply {
  problem: Problem;
  headers?: Record<string, string>;
}

const byCode: Record<PaymentsErrorCode, { status: number; title: string }> = {
  [PaymentsErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency-Key required' },
  [PaymentsErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Invalid Idempotency-Key' },
  [PaymentsErrorCode.ValidationFailed]: { status: 400, title: 'Invalid request' },
  [PaymentsErrorCode.UnsupportedMediaType]: { status: 415, title: 'Unsupported media type' },
  [PaymentsErrorCode.PaymentRejected]: { status: 422, title: 'Payment rejected' },
};

// body-parser's error types (http-errors `type`), e.g. for a body over the limit or unparsable JSON.
const bodyErrors: Record<string, { status: number; code: string; title: string; detail?: string }> = {
  'entity.parse.failed': {
    status: 400,
    code: PaymentsErrorCode.ValidationFailed,
    title: 'Invalid request',
    detail: 'The body is not valid JSON',
  },
  'entity.too.large': { status: 413, code: 'payload_too_large', title: 'Payload too large' },
  'charset.unsupported': {
    status: 415,
    code: PaymentsErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
  'encoding.unsupported': {
    status: 415,
    code: PaymentsErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
};

/**
 * The payments service's only exception filter: every error leaves as `application/problem+json`.
 * - Idempotency errors through the adapter's `problemForIdempotencyError`, with this route's code for a duplicate
 *   in flight: 409 `payment_in_progress` + `Retry-After: 1`; 422 `idempotency_key_reused`; 503
 *   `idempotency_store_unavailable` + `Retry-After`; 400 `idempotency_key_invalid`.
 * - The service's own errors map by `code`.
 * - The provider failing after the retries: 502 `upstream_unavailable` or 504 `upstream_timeout` (the provider is
 *   an external system: its own problem bodies are not passed on).
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
    const idempotency = problemForIdempotencyError(error, {
      [IdempotencyErrorCode.InProgress]: { code: 'payment_in_progress', title: 'Payment in progress' },
    });
    if (idempotency !== undefined) {
      if (idempotency.status >= 500) {
        this.logger.warn({ msg: 'idempotency failure', requestId: requestIdOf(req), error: describe(error) });
      }
      const { status, code, title, detail, headers } = idempotency;
      return { problem: problem(status, code, title, detail), headers };
    }
    if (isPaymentsError(error)) {
      const { status, title } = byCode[error.code];
      return { problem: problem(status, error.code, title, error.message) };
    }
    if (isHttpClientError(error)) {
      this.logger.warn({
        msg: 'provider failed',
        requestId: requestIdOf(req),
        code: error.code,
        error: error.message,
      });
      if (error.code === HttpClientErrorCode.UpstreamTimeout) {
        return {
          problem: problem(
            504,
            'upstream_timeout',
            'Upstream timeout',
            'The payment provider did not answer in time',
          ),
        };
      }
      if (error.code === HttpClientErrorCode.UpstreamUnavailable) {
        return {
          problem: problem(
            502,
            'upstream_unavailable',
            'Upstream unavailable',
            'The payment provider is unavailable',
          ),
        };
      }
    }
    const bodyError = bodyErrorOf(error);
    if (bodyError !== undefined) {
      const { status, code, title, detail } = bodyError.mapping;
      return { problem: problem(status, code, title, detail ?? bodyError.message) };
    }
    if (error instanceof HttpException && error.getStatus() < 500) {
      const status = error.getStatus();
      const code =
        status === 404 ? 'not_found' : status === 400 ? PaymentsErrorCode.ValidationFailed : `http_${status}`;
      return { problem: problem(status, code, statusTitle(status), error.message) };
    }
    this.logger.error({ msg: 'unhandled error', requestId: requestIdOf(req), error: describe(error) });
    return {
      problem: problem(500, 'internal_error', 'Internal error', 'The payments service failed unexpectedly'),
    };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
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
