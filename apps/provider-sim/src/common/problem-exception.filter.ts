import {
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ProviderErrorCode, isProviderSimError } from './provider-errors.js';
import { requestIdOf } from './request-context.middleware.js';

/** An RFC 9457 problem body as provider-sim sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable, snake_case code for clients. */
  code: string;
}

const byCode: Record<ProviderErrorCode, { status: number; title: string }> = {
  [ProviderErrorCode.ValidationFailed]: { status: 400, title: 'Invalid request' },
  [ProviderErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency-Key required' },
  [ProviderErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Invalid Idempotency-Key' },
  // 422 as the IETF idempotency-key draft says (Stripe itself answers 400 here).
  [ProviderErrorCode.IdempotencyKeyReused]: {
    status: 422,
    title: 'Idempotency-Key reused with different parameters',
  },
};

/** Problem `type` URI for a code (a URN: these types are identifiers, not pages). */
export function problemType(code: string): string {
  return `urn:retry-safe:problem:${code}`;
}

/**
 * The app's only exception filter: every error leaves as `application/problem+json`. Provider errors map by `code`;
 * Nest's own HttpExceptions (unknown route, unparsable JSON) keep their status; anything else is a logged 500.
 */
@Catch()
export class ProblemExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemExceptionFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const problem = this.toProblem(error, req);
    // A fault may have destroyed the socket, or a handler may have started the answer: nothing more can be sent.
    if (res.headersSent || res.destroyed) return;
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  }

  private toProblem(error: unknown, req: Request): Problem {
    if (isProviderSimError(error)) {
      const { status, title } = byCode[error.code];
      return { type: problemType(error.code), title, status, detail: error.message, code: error.code };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const code = httpCode(status);
      return { type: problemType(code), title: titleOf(status), status, detail: error.message, code };
    }
    this.logger.error('unhandled error', {
      requestId: requestIdOf(req),
      error: error instanceof Error ? error.stack : String(error),
    });
    return {
      type: problemType('internal_error'),
      title: 'Internal error',
      status: HttpStatus.INTERNAL_SERVER_ERROR,
      detail: 'The simulator failed unexpectedly',
      code: 'internal_error',
    };
  }
}

function httpCode(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    default:
      return status >= 500 ? 'internal_error' : `http_${status}`;
  }
}

function titleOf(status: number): string {
  const name = HttpStatus[status];
  if (typeof name !== 'string') return `HTTP ${status}`;
  return name
    .toLowerCase()
    .split('_')
    .map((word, i) => (i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word))
    .join(' ');
}
