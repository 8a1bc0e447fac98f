/** Stable codes of the gateway's own errors; the exception filter turns each into one problem response. */
export const GatewayErrorCode = {
  Unauthorized: 'unauthorized',
  IdempotencyKeyMissing: 'idempotency_key_missing',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  ValidationFailed: 'validation_failed',
  UnsupportedMediaType: 'unsupported_media_type',
} as const;
/** One of {@link GatewayErrorCode}'s values. */
export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

/** Base of every error the gateway throws on purpose; never an HttpException (the filter maps codes to HTTP). */
export abstract class GatewayError extends Error {
  abstract readonly code: GatewayErrorCode;
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

/** No bearer token, or one that maps to no tenant. */
export class UnauthorizedError extends GatewayError {
  readonly code = GatewayErrorCode.Unauthorized;
  constructor(reason: string) {
    super(reason);
  }
}

/** A payment without `Idempotency-Key`. */
export class IdempotencyKeyMissingError extends GatewayError {
  readonly code = GatewayErrorCode.IdempotencyKeyMissing;
  constructor() {
    super(
      'The Idempotency-Key header is required: send a unique key per payment and reuse it on every retry',
    );
  }
}

/** An `Idempotency-Key` that is repeated, malformed or breaks the coordinator's key rules. */
export class IdempotencyKeyInvalidError extends GatewayError {
  readonly code = GatewayErrorCode.IdempotencyKeyInvalid;
  constructor(readonly reason: string) {
    super(`The Idempotency-Key is not acceptable: ${reason}`, { reason });
  }
}

/** A path parameter or body that does not match its schema. */
export class ValidationFailedError extends GatewayError {
  readonly code = GatewayErrorCode.ValidationFailed;
  constructor(
    /** One line per problem, e.g. `amount: must be a positive integer`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Invalid request: ${issues.join('; ')}`, { issues }, options);
  }
}

/** A body that is not `application/json`. */
export class UnsupportedMediaTypeError extends GatewayError {
  readonly code = GatewayErrorCode.UnsupportedMediaType;
  constructor(contentType: string | undefined) {
    super(
      `The body must be application/json, got ${contentType === undefined ? 'no Content-Type' : contentType}`,
      {
        contentType,
      },
    );
  }
}

const codes = new Set<string>(Object.values(GatewayErrorCode));

/** True for the gateway's own errors, recognised by `code`. */
export function isGatewayError(error: unknown): error is GatewayError {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && codes.has(code);
}
