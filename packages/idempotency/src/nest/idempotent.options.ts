import type { InFlightMode } from '../options.js';

/** The request as the route options see it (Express's `Request`, structurally). */
export interface IdempotentRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url?: string;
  readonly body?: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly headersDistinct?: Record<string, string[] | undefined>;
}

/** Options of {@link Idempotent}: what one route stores and how it tells requests apart. */
export interface IdempotentRouteOptions {
  /** Names the operation: records of two operations never meet (e.g. `payment.charge`). No `:`, at most 100. */
  readonly operation: string;
  /** How long the response is replayed. @default the module's `ttlMs` (24 hours) */
  readonly ttlMs?: number;
  /**
   * What makes two requests "the same": a key sent again with another fingerprint is refused (422
   * `idempotency_key_reused`). Hashed with `fingerprintOf`, so it must be JSON-like.
   * @default the method, the path (without the query) and the parsed body
   */
  readonly fingerprint?: (req: IdempotentRequest) => unknown;
  /**
   * Separates records, e.g. by tenant (`(req) => req.user.tenantId`): the same key in two scopes is two records.
   * Appended to the operation as `<operation>.<scope>`.
   */
  readonly scope?: (req: IdempotentRequest) => string;
  /** What a request that finds the key in flight does. @default the coordinator's (`wait`) */
  readonly inFlight?: InFlightMode;
  /** Response headers stored and replayed with the status and the body. @default the module's (`['Location']`) */
  readonly replayHeaders?: readonly string[];
}
