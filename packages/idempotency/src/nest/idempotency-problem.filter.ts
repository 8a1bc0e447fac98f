import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { throwError, type Observable } from 'rxjs';
import { IdempotencyError } from '../errors.js';
import type { IdempotencyModuleOptions } from './interfaces/idempotency-module-options.interface.js';
import { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition.js';
import { problemForIdempotencyError, type IdempotencyProblem } from './problem.js';

/**
 * What a microservice client receives for an idempotency error (an `RpcException`'s error), and what a GraphQL
 * error carries as `extensions`: the same `code` and `status` as the HTTP problem, and `retryAfter` (seconds)
 * where a retry should wait.
 */
export interface IdempotencyErrorPayload {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly retryAfter?: number;
}

/**
 * Answers an idempotency error of an `@Idempotent()` handler in its context's own form, with the same codes
 * everywhere: over HTTP an RFC 9457 `application/problem+json` (400, 409, 422, 503 with `Retry-After`, ...) through
 * Nest's HTTP adapter (Express or Fastify); to a microservice client an error `{ status, code, message, retryAfter }`;
 * in GraphQL an error whose `extensions` hold the same. Other errors go on to the app's own filters.
 */
@Catch(IdempotencyError)
export class IdempotencyProblemFilter implements ExceptionFilter {
  constructor(
    @Inject(IDEMPOTENCY_MODULE_OPTIONS) private readonly options: IdempotencyModuleOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  catch(error: IdempotencyError, host: ArgumentsHost): Observable<never> | Error | void {
    const problem = problemForIdempotencyError(error, this.options.problems)!;
    switch (host.getType<string>()) {
      case 'rpc':
        // An RPC filter answers with an Observable that errors: Nest sends its error to the client.
        return throwError(() => payloadOf(problem, error));
      case 'graphql': {
        // A resolver's error is returned to GraphQL, which reports it with these extensions.
        const payload = payloadOf(problem, error);
        return Object.assign(new Error(payload.message), { extensions: payload });
      }
      default:
        return this.reply(problem, host);
    }
  }

  private reply(problem: IdempotencyProblem, host: ArgumentsHost): void {
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

/**
 * A message or a GraphQL field finds its key where its `keyFrom` says (a transport header, a payload path, an
 * argument, a function): the HTTP problem's "The Idempotency-Key header is required" would send its client looking
 * for a header it may not use.
 */
const KEY_MISSING_MESSAGE = 'An idempotency key is required';

function payloadOf(problem: IdempotencyProblem, error: IdempotencyError): IdempotencyErrorPayload {
  const retryAfter = problem.headers['Retry-After'];
  return {
    status: problem.status,
    code: problem.code,
    // Recognised as problem.ts does (by its `missing` flag), not by class: a second copy of the library may throw it.
    message: 'missing' in error && error.missing === true ? KEY_MISSING_MESSAGE : problem.detail,
    ...(retryAfter === undefined ? {} : { retryAfter: Number(retryAfter) }),
  };
}
