/** Stable codes of the orders service's own errors; the exception filter turns each into one problem response. */
export const OrdersErrorCode = {
  IdempotencyKeyMissing: 'idempotency_key_missing',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  ValidationFailed: 'validation_failed',
  UnsupportedMediaType: 'unsupported_media_type',
  QueueUnavailable: 'queue_unavailable',
} as const;
/** One of {@link OrdersErrorCode}'s values. */
export type OrdersErrorCode = (typeof OrdersErrorCode)[keyof typeof OrdersErrorCode];

/** Base of every error the orders service throws on purpose; never an HttpException (the filter maps codes). */
export abstract class OrdersError extends Error {
  abstract readonly code: OrdersErrorCode;
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

/** A payment without `Idempotency-Key` (the gateway always sends one: this is a caller bug). */
export class IdempotencyKeyMissingError extends OrdersError {
  readonly code = OrdersErrorCode.IdempotencyKeyMissing;
  constructor() {
    super('The Idempotency-Key header is required');
  }
}

/** A repeated `Idempotency-Key` header (the key itself is checked by payments). */
export class IdempotencyKeyInvalidError extends OrdersError {
  readonly code = OrdersErrorCode.IdempotencyKeyInvalid;
  constructor(readonly reason: string) {
    super(`The Idempotency-Key is not acceptable: ${reason}`, { reason });
  }
}

/** A header, path parameter or body that does not match its schema. */
export class ValidationFailedError extends OrdersError {
  readonly code = OrdersErrorCode.ValidationFailed;
  constructor(
    /** One line per problem, e.g. `amount: must be a positive integer`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Invalid request: ${issues.join('; ')}`, { issues }, options);
  }
}

/** A body that is not `application/json`. */
export class UnsupportedMediaTypeError extends OrdersError {
  readonly code = OrdersErrorCode.UnsupportedMediaType;
  constructor(contentType: string | undefined) {
    super(
      `The body must be application/json, got ${contentType === undefined ? 'no Content-Type' : contentType}`,
      {
        contentType,
      },
    );
  }
}

/** The invoice queue (Redis) did not take the job; nothing was enqueued. */
export class QueueUnavailableError extends OrdersError {
  readonly code = OrdersErrorCode.QueueUnavailable;
  constructor(options?: ErrorOptions) {
    super('The invoice queue is unavailable; nothing was enqueued, retry later', {}, options);
  }
}

const codes = new Set<string>(Object.values(OrdersErrorCode));

/** True for the orders service's own errors, recognised by `code`. */
export function isOrdersError(error: unknown): error is OrdersError {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && codes.has(code);
}
