import { RequestProblemCode } from '@retry-safe/contracts/http';

/**
 * Stable codes of the errors every service shares; each app spreads them into its own `...ErrorCode` object and
 * adds its own. {@link ProblemExceptionFilter} turns each of these into one problem response. A missing or invalid
 * `Idempotency-Key` is the library's error (`IdempotencyKeyMissingError`, `InvalidIdempotencyKeyError` of
 * `@retry-safe/idempotency`), answered by the library's mapping.
 */
export const ServiceErrorCode = {
  ValidationFailed: RequestProblemCode.ValidationFailed,
  UnsupportedMediaType: RequestProblemCode.UnsupportedMediaType,
  Unauthorized: RequestProblemCode.Unauthorized,
} as const;
/** One of {@link ServiceErrorCode}'s values. */
export type ServiceErrorCode = (typeof ServiceErrorCode)[keyof typeof ServiceErrorCode];

/**
 * Base of every error a service throws on purpose; never an HttpException (the filter maps codes to HTTP).
 * @typeParam C - the codes of the service that throws it.
 */
export abstract class ServiceError<C extends string = string> extends Error {
  abstract readonly code: C;
  protected constructor(
    message: string,
    /** What the error concerns, for logs (never secrets). */
    readonly context: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No credential, or one that is not valid (401): nothing else of the request was read. */
export class UnauthorizedError extends ServiceError<ServiceErrorCode> {
  readonly code = ServiceErrorCode.Unauthorized;
  constructor(reason: string) {
    super(reason);
  }
}

/** A header, path parameter or body that does not match its schema. */
export class ValidationFailedError extends ServiceError<ServiceErrorCode> {
  readonly code = ServiceErrorCode.ValidationFailed;
  constructor(
    /** One line per problem, e.g. `amount: must be a positive integer`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Invalid request: ${issues.join('; ')}`, { issues }, options);
  }
}

/** A body that is not `application/json`. */
export class UnsupportedMediaTypeError extends ServiceError<ServiceErrorCode> {
  readonly code = ServiceErrorCode.UnsupportedMediaType;
  constructor(contentType: string | undefined) {
    super(
      `The body must be application/json, got ${contentType === undefined ? 'no Content-Type' : contentType}`,
      {
        contentType,
      },
    );
  }
}

/**
 * A guard recognising a service's errors by `code` (not `instanceof`: codes are what crosses module and package
 * boundaries).
 * @param codes - the service's error codes object (e.g. `{ ...ServiceErrorCode, Unauthorized: 'unauthorized' }`).
 */
export function errorGuard<C extends string>(
  codes: Readonly<Record<string, C>>,
): (error: unknown) => error is ServiceError<C> {
  const known = new Set<string>(Object.values(codes));
  return (error: unknown): error is ServiceError<C> => {
    if (!(error instanceof Error)) return false;
    const code: unknown = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' && known.has(code);
  };
}

/** True for the errors every service shares ({@link ServiceErrorCode}), recognised by `code`. */
export const isServiceError = errorGuard(ServiceErrorCode);
