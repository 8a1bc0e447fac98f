/** Carries the absolute deadline of the whole call chain, as epoch milliseconds (set by the gateway). */
export const DEADLINE_HEADER = 'x-request-deadline';

/** Carries the request id that follows a call down the chain (for logs). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The client's idempotency key, forwarded to every hop exactly as the client sent it. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
