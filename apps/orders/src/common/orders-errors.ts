import { ServiceError, ServiceErrorCode, errorGuard } from '@retry-safe/app-shell/http';
import { ProblemCode } from '@retry-safe/contracts';

/** Stable codes of the orders service's own errors; the exception filter turns each into one problem response. */
export const OrdersErrorCode = {
  ...ServiceErrorCode,
  QueueUnavailable: ProblemCode.QueueUnavailable,
  OrderNotFound: ProblemCode.OrderNotFound,
  CurrencyMismatch: ProblemCode.CurrencyMismatch,
  PaymentExceedsBalance: ProblemCode.PaymentExceedsBalance,
  PaymentInProgress: ProblemCode.PaymentInProgress,
  InvoiceVersionConflict: ProblemCode.InvoiceVersionConflict,
  InvoiceVersionLimit: ProblemCode.InvoiceVersionLimit,
  InvoiceRateLimited: ProblemCode.InvoiceRateLimited,
} as const;
/** One of {@link OrdersErrorCode}'s values. */
export type OrdersErrorCode = (typeof OrdersErrorCode)[keyof typeof OrdersErrorCode];

/** The invoice queue (Redis) did not take the job; nothing was enqueued. */
export class QueueUnavailableError extends ServiceError<typeof OrdersErrorCode.QueueUnavailable> {
  readonly code = OrdersErrorCode.QueueUnavailable;
  constructor(options?: ErrorOptions) {
    super('The invoice queue is unavailable; nothing was enqueued, retry later', {}, options);
  }
}

/** No such order for this tenant: unknown, or another tenant's (the same answer, so ids of others leak nothing). */
export class OrderNotFoundError extends ServiceError<typeof OrdersErrorCode.OrderNotFound> {
  readonly code = OrdersErrorCode.OrderNotFound;
  constructor(orderId: string) {
    super(`Order ${orderId} does not exist`, { orderId });
  }
}

/** A payment in another currency than its order's. */
export class CurrencyMismatchError extends ServiceError<typeof OrdersErrorCode.CurrencyMismatch> {
  readonly code = OrdersErrorCode.CurrencyMismatch;
  constructor(orderId: string, orderCurrency: string, paymentCurrency: string) {
    super(`Order ${orderId} is in ${orderCurrency}, the payment in ${paymentCurrency}`, {
      orderId,
      orderCurrency,
      paymentCurrency,
    });
  }
}

/** A payment larger than what the order still owes. */
export class PaymentExceedsBalanceError extends ServiceError<typeof OrdersErrorCode.PaymentExceedsBalance> {
  readonly code = OrdersErrorCode.PaymentExceedsBalance;
  constructor(orderId: string, owed: number, amount: number) {
    super(`Order ${orderId} owes ${owed}, the payment is ${amount}`, { orderId, owed, amount });
  }
}

/**
 * A payment that fits what the order still owes, but not beside the payments in flight (reserved, outcome not known
 * yet): one of them may still fail and release its reservation, so the client may retry later.
 */
export class PaymentInProgressError extends ServiceError<typeof OrdersErrorCode.PaymentInProgress> {
  readonly code = OrdersErrorCode.PaymentInProgress;
  constructor(orderId: string, owed: number, reserved: number, amount: number) {
    super(
      `Order ${orderId} owes ${owed}, of which ${reserved} is reserved by payments in progress; the payment is ${amount}, retry later`,
      { orderId, owed, reserved, amount },
    );
  }
}

/** An invoice version already requested for another address: a version is sent once, to one address. */
export class InvoiceVersionConflictError extends ServiceError<typeof OrdersErrorCode.InvoiceVersionConflict> {
  readonly code = OrdersErrorCode.InvoiceVersionConflict;
  constructor(orderId: string, version: number) {
    super(`Invoice version ${version} of order ${orderId} was requested for another address`, {
      orderId,
      version,
    });
  }
}

/** A new invoice version for an order that already has `INVOICE_MAX_VERSIONS` of them. */
export class InvoiceVersionLimitError extends ServiceError<typeof OrdersErrorCode.InvoiceVersionLimit> {
  readonly code = OrdersErrorCode.InvoiceVersionLimit;
  constructor(orderId: string, maxVersions: number) {
    super(`Order ${orderId} has ${maxVersions} invoice versions, the most an order may have`, {
      orderId,
      maxVersions,
    });
  }
}

/** The tenant asked for more invoices than `INVOICE_RATE_LIMIT` per `INVOICE_RATE_WINDOW_MS`; nothing was recorded. */
export class InvoiceRateLimitedError extends ServiceError<typeof OrdersErrorCode.InvoiceRateLimited> {
  readonly code = OrdersErrorCode.InvoiceRateLimited;
  constructor(
    tenantId: string,
    /** When the tenant may ask again, in ms from now. */
    readonly retryAfterMs: number,
  ) {
    super(`Too many invoice requests; retry in ${Math.ceil(retryAfterMs / 1000)} s`, {
      tenantId,
      retryAfterMs,
    });
  }
}

/** True for the orders service's own errors, recognised by `code`. */
export const isOrdersError = errorGuard(OrdersErrorCode);
