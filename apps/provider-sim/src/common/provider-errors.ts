import { ServiceError, ServiceErrorCode, errorGuard } from '@retry-safe/app-shell/http';

/**
 * Stable codes of provider-sim's errors; the exception filter turns each into one problem response. A body that
 * does not parse is the shell's generic error, a key missing or malformed the idempotency library's (with their
 * codes and problems); the reused key is the provider's own.
 */
export const ProviderErrorCode = {
  ValidationFailed: ServiceErrorCode.ValidationFailed,
  IdempotencyKeyReused: 'idempotency_key_reused',
} as const;
/** One of {@link ProviderErrorCode}'s values. */
export type ProviderErrorCode = (typeof ProviderErrorCode)[keyof typeof ProviderErrorCode];

/** The key was first used with other parameters; nothing was charged or sent. */
export class IdempotencyKeyReusedError extends ServiceError<ProviderErrorCode> {
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
