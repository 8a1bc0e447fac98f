import {
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { Response } from 'express';
import { InvoiceWorkerErrorCode, isInvoiceWorkerError } from './worker-errors.js';

/** An RFC 9457 problem body as invoice-worker's HTTP listener sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable, snake_case code for clients. */
  code: string;
}

/** Problem `type` URI for a code (a URN: these types are identifiers, not pages). */
export function problemType(code: string): string {
  return `urn:retry-safe:problem:${code}`;
}

/**
 * The app's only exception filter, for its small HTTP listener (`/health`, `/metrics`; `/__faults` answers on its
 * own). Job failures never come here: they go to BullMQ as the job's failure.
 */
@Catch()
export class ProblemExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemExceptionFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const problem = this.toProblem(error);
    if (res.headersSent || res.destroyed) return;
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  }

  private toProblem(error: unknown): Problem {
    if (isInvoiceWorkerError(error) && error.code === InvoiceWorkerErrorCode.RedisUnavailable) {
      return {
        type: problemType('redis_unavailable'),
        title: 'Redis unavailable',
        status: HttpStatus.SERVICE_UNAVAILABLE,
        detail: error.message,
        code: 'redis_unavailable',
      };
    }
    if (isInvoiceWorkerError(error) && error.code === InvoiceWorkerErrorCode.SettingsInvalid) {
      return {
        type: problemType('validation_failed'),
        title: 'Invalid request',
        status: HttpStatus.BAD_REQUEST,
        detail: error.message,
        code: 'validation_failed',
      };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const code = status === 404 ? 'not_found' : status >= 500 ? 'internal_error' : `http_${status}`;
      return { type: problemType(code), title: titleOf(status), status, detail: error.message, code };
    }
    this.logger.error('unhandled error', { error: error instanceof Error ? error.stack : String(error) });
    return {
      type: problemType('internal_error'),
      title: 'Internal error',
      status: HttpStatus.INTERNAL_SERVER_ERROR,
      detail: 'The worker failed unexpectedly',
      code: 'internal_error',
    };
  }
}

/** `NOT_FOUND` -> `Not found`. */
function titleOf(status: number): string {
  const name = HttpStatus[status];
  if (typeof name !== 'string') return `HTTP ${status}`;
  const words = name.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
