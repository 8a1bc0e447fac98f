import { ServiceError, errorGuard } from '@retry-safe/app-shell';

/** Stable codes of provider-sim's errors; the exception filter turns each into one problem response. */
export const ProviderErrorCode = {
  ValidationFailed: 'validation_failed',
  IdempotencyKeyMissing: 'idempotency_key_missing',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  IdempotencyKeyReused: 'idempotency_key_reused',
} as const;
/** One of {@link ProviderErrorCode}'s values. */
export type ProviderErrorCode = (typeof ProviderErrorCode)[keyof typeof ProviderErrorCode];

/** Base of every error provider-sim throws on purpose; never an HttpException (the filter maps codes to HTTP). */
export abstract class ProviderSimError extends ServiceError<ProviderErrorCode> {}

/** The request body does not match the endpoint's schema. */
export class ValidationFailedError extends ProviderSimError {
  readonly code = ProviderErrorCode.ValidationFailed;
  constructor(
    /** One line per problem, e.g. `amount: must be a positive integer`. */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`Invalid request body: ${issues.join('; ')}`, { issues }, options);
  }
}

/** A POST without the `Idempotency-Key` header (the provider requires one, like Stripe's strict mode). */
export class IdempotencyKeyMissingError extends ProviderSimError {
  readonly code = ProviderErrorCode.IdempotencyKeyMissing;
  constructor() {
    super('The Idempotency-Key header is required');
  }
}

/** The `Idempotency-Key` is blank, too long or not printable ASCII. */
export class IdempotencyKeyInvalidError extends ProviderSimError {
  readonly code = ProviderErrorCode.IdempotencyKeyInvalid;
  constructor(readonly reason: string) {
    super(`Invalid Idempotency-Key: ${reason}`, { reason });
  }
}

/** The key was first used with other parameters; nothing was charged or sent. */
export class IdempotencyKeyReusedError extends ProviderSimError {
  readonly code = ProviderErrorCode.IdempotencyKeyReused;
  constructor(idempotencyKey: string) {
    super(
      'Keys for idempotent requests can only be used with the same parameters they were first used with',
      {
        idempotencyKey,
      },
    );
  }
}

/** True for provider-sim's own errors, recognised by `code`. */
export const isProviderSimError = errorGuard(ProviderErrorCode);
