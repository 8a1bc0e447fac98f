import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { IdempotencyError } from '../errors.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { problemForIdempotencyError } from './problem.js';

/**
 * Sends an idempotency error of an `@Idempotent()` route as an RFC 9457 `application/problem+json` (400, 409,
 * 422, 503 with `Retry-After`, ...), through Nest's HTTP adapter (Express or Fastify). Other errors go on to the
 * app's own filters.
 */
@Catch(IdempotencyError)
export class IdempotencyProblemFilter implements ExceptionFilter {
  constructor(
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  catch(error: IdempotencyError, host: ArgumentsHost): void {
    const problem = problemForIdempotencyError(error, this.options.problems)!;
    const { httpAdapter } = this.adapterHost;
    const req: unknown = host.switchToHttp().getRequest();
    const res: unknown = host.switchToHttp().getResponse();
    for (const [name, value] of Object.entries(problem.headers)) httpAdapter.setHeader(res, name, value);
    httpAdapter.setHeader(res, 'Content-Type', 'application/problem+json');
    const { status, code, title, detail } = problem;
    const instance = httpAdapter.getRequestUrl(req) as string;
    // A string body: both adapters keep the Content-Type set above for a string (an object would become JSON).
    httpAdapter.reply(
      res,
      JSON.stringify({ type: 'about:blank', title, status, detail, code, instance }),
      status,
    );
  }
}
