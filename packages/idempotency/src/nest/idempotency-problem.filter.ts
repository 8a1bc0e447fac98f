import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { IdempotencyError } from '../errors.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { problemForIdempotencyError } from './problem.js';

interface ProblemResponse {
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Sends an idempotency error of an `@Idempotent()` route as an RFC 9457 `application/problem+json` (400, 409,
 * 422, 503 with `Retry-After`, ...). Other errors go on to the app's own filters.
 */
@Catch(IdempotencyError)
export class IdempotencyProblemFilter implements ExceptionFilter {
  constructor(@Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions) {}

  catch(error: IdempotencyError, host: ArgumentsHost): void {
    const problem = problemForIdempotencyError(error, this.options.problems)!;
    const req = host.switchToHttp().getRequest<{ originalUrl?: string; url?: string }>();
    const res = host.switchToHttp().getResponse<ProblemResponse>();
    res.status(problem.status);
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', 'application/problem+json');
    const { status, code, title, detail } = problem;
    res.end(
      JSON.stringify({
        type: 'about:blank',
        title,
        status,
        detail,
        code,
        instance: req.originalUrl ?? req.url,
      }),
    );
  }
}
