import { ChainHeader } from '@retry-safe/contracts/http';
import type { ServiceResponse } from '@retry-safe/http-client';
import type { HttpReply } from './http-platform.js';

// What a hop passes up from the answer it got: the media type (problem+json stays problem+json) and the retry hint
// of a 409 or 503. The replay marker is this hop's own call (below).
const RELAYED_HEADERS = ['content-type', 'retry-after'] as const;

/**
 * Answers with a downstream response: status, the headers above, and the body (re-serialized as JSON by the platform,
 * which gives back the same bytes for a body that JSON.stringify produced), with this hop's own replay marker (see
 * {@link storedBeforeThisRequest}). Returns the body for the handler to return, so interceptors and faults after
 * the handler still see the answer before it is sent.
 */
export function relay(res: HttpReply, upstream: ServiceResponse<unknown>): unknown {
  res.status(upstream.status);
  for (const name of RELAYED_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) res.header(name, value);
  }
  if (storedBeforeThisRequest(upstream)) res.header(ChainHeader.IdempotentReplayed, 'true');
  return upstream.data;
}

/**
 * Whether a downstream answer may reach this hop's caller as `Idempotent-Replayed: true`, which says the key's
 * answer was stored before this request reached this hop: only when the downstream replayed it to this hop's
 * first attempt. A replay to a later attempt may be of what an earlier attempt of this very request stored, its
 * answer lost on the way back: that is still the caller's first answer, so it goes up unmarked (a marker missing
 * is safe, a false one is not). Every hop applies the same rule, so the client sees the marker only for a
 * request that arrived after its answer was stored.
 */
export function storedBeforeThisRequest(upstream: ServiceResponse<unknown>): boolean {
  return upstream.attempts === 1 && upstream.headers[ChainHeader.IdempotentReplayed] === 'true';
}
