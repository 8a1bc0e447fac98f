import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { PROBLEM_CONTENT_TYPE, RequestProblemCode, problem, type Problem } from '@retry-safe/contracts/http';
import { problemForIdempotencyError, type IdempotencyProblemOverrides } from '@retry-safe/idempotency/nest';
import type { IncomingMessage } from 'node:http';
import { ServiceErrorCode, isServiceError } from './errors.js';
import { statusTitle } from './status-title.js';
import { requestIdOf } from './request-context.js';
import { nodeRequestOf, sendAnswer, type HttpRequest } from './http-platform.js';

/** A problem and the headers that go with it. */
export interface ProblemReply {
  readonly problem: Problem;
  readonly headers?: Record<string, string>;
}

/** What an app's {@link ProblemMapper} gets besides the error. */
export interface ProblemMapperContext {
  /** The Node request (on Fastify, the request's `raw`). */
  readonly req: IncomingMessage;
  /** The filter's logger (context `ProblemExceptionFilter`). */
  readonly logger: Logger;
  /** The 500 `internal_error` problem of this service, which reveals nothing. */
  readonly internalError: () => ProblemReply;
}

/** Maps the errors only this app knows; `undefined` hands the error on to the shared mapping. */
export type ProblemMapper = (error: unknown, context: ProblemMapperContext) => ProblemReply | undefined;

/** How one of the app's error codes leaves: its status and title, and its HTTP `code` when it differs. */
export interface ProblemCodeMapping {
  readonly status: number;
  readonly title: string;
  /** The snake_case `code` of the problem. @default the error's own `code` (already snake_case) */
  readonly code?: string;
  /** Sent with the problem, e.g. `{ 'Retry-After': '1' }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The app's own error codes (an error's `code` property) and the problems they become. */
export type ProblemCodeMap = Readonly<Record<string, ProblemCodeMapping>>;

/** Options of a {@link ProblemExceptionFilter}. */
export interface ProblemExceptionFilterOptions {
  /** Names the service in the 500 detail, e.g. `The gateway` gives "The gateway failed unexpectedly". */
  readonly serviceName: string;
  /** Runs first (after the idempotency errors), for what a code alone cannot say: downstream calls, databases. */
  readonly mapError?: ProblemMapper;
  /**
   * The library's idempotency errors are answered by its mapping (`problemForIdempotencyError`); these override the
   * `code` and `title` a route publishes for some of them, e.g. payments' 409 `payment_in_progress`. @default none
   */
  readonly idempotencyOverrides?: IdempotencyProblemOverrides;
  /**
   * The detail of 400 `idempotency_key_missing`, for an edge that tells its clients more than the library's "The
   * Idempotency-Key header is required". @default the library's
   */
  readonly keyMissingDetail?: string;
  /** The app's own codes, recognised on any error by its `code` property (5xx ones are logged as warnings). */
  readonly codes?: ProblemCodeMap;
}

const byCode: Record<ServiceErrorCode, { status: number; title: string }> = {
  [ServiceErrorCode.ValidationFailed]: { status: 400, title: 'Invalid request' },
  [ServiceErrorCode.UnsupportedMediaType]: { status: 415, title: 'Unsupported media type' },
  [ServiceErrorCode.Unauthorized]: { status: 401, title: 'Unauthorized' },
};

// body-parser's error types (http-errors `type`), e.g. for a body over the limit or unparsable JSON.
const bodyErrors: Record<string, { status: number; code: string; title: string; detail?: string }> = {
  'entity.parse.failed': {
    status: 400,
    code: ServiceErrorCode.ValidationFailed,
    title: 'Invalid request',
    detail: 'The body is not valid JSON',
  },
  'entity.too.large': { status: 413, code: 'payload_too_large', title: 'Payload too large' },
  'charset.unsupported': {
    status: 415,
    code: ServiceErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
  'encoding.unsupported': {
    status: 415,
    code: ServiceErrorCode.UnsupportedMediaType,
    title: 'Unsupported media type',
  },
};

/**
 * A service's only exception filter: every error leaves as `application/problem+json`.
 * - First the idempotency library's errors, through the library's own mapping (`problemForIdempotencyError`: 400
 *   `idempotency_key_missing`/`_invalid`, 409 + `Retry-After`, 422, 503 + `Retry-After`, ...; 5xx ones logged).
 * - Then the app's {@link ProblemExceptionFilterOptions.mapError}, then its code map
 *   ({@link ProblemExceptionFilterOptions.codes}).
 * - The shared errors ({@link ServiceErrorCode}) map by `code` (400, 401, 415).
 * - Nest's and body-parser's HttpExceptions keep their status with a stable code; the rest is a logged 500.
 *
 * {@link AppShellModule} provides it as `APP_FILTER` with the app's options; tests build it with the same options.
 */
@Catch()
export class ProblemExceptionFilter implements ExceptionFilter {
  // A literal, not `.name`: the log context stays `ProblemExceptionFilter` whatever the subclass is called.
  private readonly logger = new Logger('ProblemExceptionFilter');

  constructor(private readonly options: ProblemExceptionFilterOptions) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = nodeRequestOf(http.getRequest<HttpRequest>());
    const res = http.getResponse<Parameters<typeof sendAnswer>[0]>();
    // A fault may have destroyed the socket, or the answer may have started: nothing more can be sent.
    const raw = 'raw' in res ? res.raw : res;
    if (raw.headersSent || raw.destroyed) return;
    const { problem: body, headers = {} } = this.toProblem(error, req);
    sendAnswer(res, {
      status: body.status,
      headers,
      mediaType: PROBLEM_CONTENT_TYPE,
      body: JSON.stringify(body),
    });
  }

  private toProblem(error: unknown, req: IncomingMessage): ProblemReply {
    const internalError = (): ProblemReply => ({
      problem: problem(
        500,
        'internal_error',
        'Internal error',
        `${this.options.serviceName} failed unexpectedly`,
      ),
    });
    const idempotency = this.idempotencyProblem(error, req);
    if (idempotency !== undefined) return idempotency;
    const mapped = this.options.mapError?.(error, { req, logger: this.logger, internalError });
    if (mapped !== undefined) return mapped;
    const own = this.ownProblem(error, req);
    if (own !== undefined) return own;
    if (isServiceError(error)) {
      const { status, title } = byCode[error.code];
      return { problem: problem(status, error.code, title, error.message) };
    }
    const bodyError = bodyErrorOf(error);
    if (bodyError !== undefined) {
      const { status, code, title, detail } = bodyError.mapping;
      return { problem: problem(status, code, title, detail ?? bodyError.message) };
    }
    if (error instanceof HttpException && error.getStatus() < 500) {
      const status = error.getStatus();
      const code =
        status === 404 ? 'not_found' : status === 400 ? ServiceErrorCode.ValidationFailed : `http_${status}`;
      return { problem: problem(status, code, statusTitle(status), error.message) };
    }
    this.logger.error({ msg: 'unhandled error', requestId: requestIdOf(req), error: describeError(error) });
    return internalError();
  }

  // The library's table of code -> status/title/detail, the one place its errors become problems.
  private idempotencyProblem(error: unknown, req: IncomingMessage): ProblemReply | undefined {
    const mapped = problemForIdempotencyError(error, this.options.idempotencyOverrides);
    if (mapped === undefined) return undefined;
    if (mapped.status >= 500) {
      this.logger.warn({
        msg: 'idempotency failure',
        requestId: requestIdOf(req),
        error: describeError(error),
      });
    }
    const { status, code, title, headers } = mapped;
    const detail =
      code === RequestProblemCode.IdempotencyKeyMissing
        ? (this.options.keyMissingDetail ?? mapped.detail)
        : mapped.detail;
    return { problem: problem(status, code, title, detail), headers };
  }

  private ownProblem(error: unknown, req: IncomingMessage): ProblemReply | undefined {
    const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
    const mapping = typeof code === 'string' ? this.options.codes?.[code] : undefined;
    if (mapping === undefined) return undefined;
    const message = (error as Error).message;
    if (mapping.status >= 500) {
      this.logger.warn({
        msg: message,
        requestId: requestIdOf(req),
        code,
        cause: String((error as Error).cause),
      });
    }
    const body = problem(mapping.status, mapping.code ?? (code as string), mapping.title, message);
    return { problem: body, ...(mapping.headers === undefined ? {} : { headers: { ...mapping.headers } }) };
  }
}

/** An error for a log line: its stack (or message), or the thrown value as a string. */
export function describeError(error: unknown): string {
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
