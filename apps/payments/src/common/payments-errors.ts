import { ServiceError, ServiceErrorCode, errorGuard } from '@retry-safe/app-shell/http';

/** Stable codes of the payments service's own errors; the exception filter turns each into one problem response. */
export const PaymentsErrorCode = {
  ...ServiceErrorCode,
  PaymentRejected: 'payment_rejected',
  ProviderUnavailable: 'provider_unavailable',
} as const;
/** One of {@link PaymentsErrorCode}'s values. */
export type PaymentsErrorCode = (typeof PaymentsErrorCode)[keyof typeof PaymentsErrorCode];

/** The provider refused the charge with a 4xx: nothing was charged, and retrying unchanged will not help. */
export class PaymentRejectedError extends ServiceError<typeof PaymentsErrorCode.PaymentRejected> {
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

/**
 * The provider is throttling or briefly unavailable (it answered 429, 408 or 503): nothing was charged, nothing is
 * stored, and the same key may be retried once `retryAfterSeconds` have passed.
 */
export class ProviderUnavailableError extends ServiceError<typeof PaymentsErrorCode.ProviderUnavailable> {
  readonly code = PaymentsErrorCode.ProviderUnavailable;
  constructor(
    readonly providerStatus: number,
    /** The provider's `Retry-After` (whole seconds, 1 to 60), or 1 when it sent none. */
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(
      `The payment provider is unavailable (${providerStatus}); nothing was charged, retry with the same key after Retry-After`,
      { providerStatus, retryAfterSeconds },
      options,
    );
  }
}

/** True for the payments service's own errors, recognised by `code`. */
export const isPaymentsError = errorGuard(PaymentsErrorCode);
