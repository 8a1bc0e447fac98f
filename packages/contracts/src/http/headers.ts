/**
 * Every header the call chain uses, by its lower-case field name (Node's `req.headers` keys). One home, so the
 * gateway, the internal hops, the worker and provider-sim spell them alike; the wire form of the key itself is
 * `formatIdempotencyKey` of `@retry-safe/idempotency` (an RFC 8941 sf-string).
 */
export const ChainHeader = {
  /** The client's idempotency key, the same on every attempt of every hop. */
  IdempotencyKey: 'idempotency-key',
  /** `true` on an answer that repeats a stored result (the convention Stripe made common). */
  IdempotentReplayed: 'idempotent-replayed',
  /** One id for a client request across every hop and retry: minted by the gateway, passed on by the others. */
  RequestId: 'x-request-id',
  /** The absolute deadline of the whole chain, as epoch milliseconds (set by the gateway). */
  Deadline: 'x-request-deadline',
  /** The tenant the gateway authenticated; internal services trust their caller with it. */
  Tenant: 'x-tenant-id',
  /**
   * `true` on a 5xx answer that the hop which sent it already retried (or whose retry budget or deadline stopped
   * it), or that passes up an answer which carried it: a caller never retries such an answer, it passes it up with
   * the header. So one layer of the chain retries a given failure, not every layer.
   */
  RetryExhausted: 'x-retry-exhausted',
} as const;
/** One of {@link ChainHeader}'s values. */
export type ChainHeader = (typeof ChainHeader)[keyof typeof ChainHeader];
