import { ChainHeader } from '@retry-safe/contracts/http';

// The chain's header names live in one module (`ChainHeader` of `@retry-safe/contracts/http`); these are the
// names this client's callers already import.

/** Carries the absolute deadline of the whole call chain, as epoch milliseconds (set by the gateway). */
export const DEADLINE_HEADER = ChainHeader.Deadline;

/** Carries the request id that follows a call down the chain (for logs). */
export const REQUEST_ID_HEADER = ChainHeader.RequestId;

/** The client's idempotency key, the same on every attempt of every hop (its wire form: `formatIdempotencyKey`). */
export const IDEMPOTENCY_KEY_HEADER = ChainHeader.IdempotencyKey;

/** `x-retry-exhausted: true`: the hop below already retried this failure; see `ChainHeader.RetryExhausted`. */
export const RETRY_EXHAUSTED_HEADER = ChainHeader.RetryExhausted;
