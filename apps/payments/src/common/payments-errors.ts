/** Stable codes of the payments service's own errors; the exception filter turns each into one problem response. */
export const PaymentsErrorCode = {
  IdempotencyKeyMissing: 'idempotency_key_missing',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  ValidationFailed: 'validation_failed',
  UnsupportedMediaType: 'unsupported_media_type',
  PaymentRejected: 'payment_rejected',
} as const;
/** One of {@link PaymentsErrorCode}'s values. */
export type PaymentsErrorCode = (typeof PaymentsErrorCode)[keyof typeof PaymentsErrorCode];

/** Base of every error the payments service throws on purpose; never an HttpException (the filter maps codes). */
export abstract class PaymentsError extends Error {
  abstract readonly code: PaymentsErrorCode;
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

/** A payment without `Idempotency-Key`. */
export class IdempotencyKeyMissingError extends PaymentsError {
  readonly code = PaymentsErrorCode.IdempotencyKeyMissing;
  constructor() {
    super('The Idempotency-Key header is required');
  }
}

/** An `Idempotency-Key` that is repeated or malformed (the coordinator checks the decoded key again). */
export class IdempotencyKeyInvalidError extends PaymentsError {
  readonly code = PaymentsErrorCode.IdempotencyKeyInvalid;
  constructor(readonly reason: string) {
    super(`The Idempotency-Key is not acceptable: ${reason}`, { reason });
  }
}

/** A body that does not match the payment command's schema. */
export class ValidationFailedError extends PaymentsError {
  readonly code = PaymentsErrorCode.ValidationFailed;
  constructor(
    /** One line per problem, e.g. `amount: must be a positive integer`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Invalid request: ${issues.join('; ')}`, { issues }, options);
  }
}

/** A body that is not `application/json`. */
export class UnsupportedMediaTypeError extends PaymentsError {
  readonly code = PaymentsErrorCode.UnsupportedMediaType;
  constructor(contentType: string | undefined) {
    super(
      `The body must be application/json, got ${contentType === undefined ? 'no Content-Type' : contentType}`,
      {
        contentType,
      },
    );
  }
}

/** The provider refused the charge with a 4xx: nothing was charged, and retrying unchanged will not help. */
export class PaymentRejectedError extends PaymentsError {
  readonly code = PaymentsErrorCode.PaymentRejected;
  constructor(
    readonly providerStatus: number,
    readonly providerCode: string | undefined,
  ) {
    super(`The payment provider refused the charge (${providerStatus} ${providerCode ?? 'without a code'})`, {
      providerStatus,
      providerCode,
    });
  }
}

const codes = new Set<string>(Object.values(PaymentsErrorCode));

/** True for the payments service's own errors, recognised by `code`. */
export function isPaymentsError(error: unknown): error is PaymentsError {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && codes.has(code);
}
