// The service's contract: what its callers send and receive. A caller's app would share this file (or a package).

/** Request `Patterns.createCharge`, with its key in the `Idempotency-Key` transport header. */
export interface CreateCharge {
  readonly amount: number;
  readonly currency: string;
}

/** Request `Patterns.refundCharge`, with its key in `meta.requestId`. */
export interface RefundCharge {
  readonly charge: string;
  readonly amount: number;
  readonly meta: { readonly requestId: string };
}

/** The reply to either request: what the provider did. */
export interface PaymentReply {
  readonly id: string;
  readonly kind: 'charge' | 'refund';
  readonly amount: number;
}

/** Event `Patterns.orderPaid`: `meta.eventId` is the same on every copy of one event. */
export interface OrderPaid {
  readonly order: string;
  readonly email: string;
  readonly meta: { readonly eventId: string };
}
