import { ChainHeader } from '@retry-safe/contracts/http';
import type { ServiceResponse } from '@retry-safe/http-client';
import type { Response } from 'express';

// What a hop passes up from the answer it got: the media type (problem+json stays problem+json), the retry hint
// of a 409 or 503, and the replay marker of a stored result.
const RELAYED_HEADERS = ['content-type', 'retry-after', ChainHeader.IdempotentReplayed] as const;

/**
 * Answers with a downstream response as it came: status, the headers above, and the body (re-serialized by
 * `res.json`, which gives back the same bytes for a body that JSON.stringify produced). Returns the body for the
 * handler to return, so interceptors and faults after the handler still see the answer before it is sent.
 */
export function relay(res: Response, upstream: ServiceResponse<unknown>): unknown {
  res.status(upstream.status);
  for (const name of RELAYED_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) res.setHeader(name, value);
  }
  return upstream.data;
}
