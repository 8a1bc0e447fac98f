import { ServiceError, ServiceErrorCode, errorGuard } from '@retry-safe/app-shell';

/** Stable codes of the orders service's own errors; the exception filter turns each into one problem response. */
export const OrdersErrorCode = {
  ...ServiceErrorCode,
  QueueUnavailable: 'queue_unavailable',
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

/** True for the orders service's own errors, recognised by `code`. */
export const isOrdersError = errorGuard(OrdersErrorCode);
