import { ServiceError, ServiceErrorCode, errorGuard } from '@retry-safe/app-shell';

/** Stable codes of the payments service's own errors; the exception filter turns each into one problem response. */
export const PaymentsErrorCode = {
  ...ServiceErrorCode,
  PaymentRejected: 'payment_rejected',
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

/** True for the payments service's own errors, recognised by `code`. */
export const isPaymentsError = errorGuard(PaymentsErrorCode);
