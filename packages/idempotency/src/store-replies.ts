import { ClaimStatus, RecordState, type ClaimResult } from './store.js';

/**
 * Numeric result codes of a store's claim: the Redis store's claim-1.lua and the Postgres store's `<table>__claim`
 * function answer the same codes, so both map to a {@link ClaimResult} here.
 */
export const ClaimReplyCode = {
  Acquired: 1,
  Completed: 2,
  InProgress: 3,
  Mismatch: 4,
  Corrupt: 5,
  CompletedWithoutResult: 6,
} as const;

/** Raised when a script answers with a shape this code does not know (a script/code version skew). */
export class UnexpectedReplyError extends Error {
  constructor(readonly reply: unknown) {
    super(`unexpected reply from an idempotency script: ${JSON.stringify(reply)}`);
    this.name = 'UnexpectedReplyError';
  }
}

/** The one place where a claim's codes (Lua script or SQL function) become a {@link ClaimResult}. */
export function claimResultOf(reply: unknown): ClaimResult {
  if (!Array.isArray(reply)) throw new UnexpectedReplyError(reply);
  const [code, a, b] = reply as [unknown, unknown, unknown];
  switch (code) {
    case ClaimReplyCode.Acquired:
      return { status: ClaimStatus.Acquired, fencingToken: Number(a) };
    case ClaimReplyCode.Completed:
      return { status: ClaimStatus.Completed, payload: String(a), fencingToken: Number(b) };
    case ClaimReplyCode.InProgress:
      return { status: ClaimStatus.InProgress, retryAfterMs: Math.max(0, Number(a)) };
    case ClaimReplyCode.Mismatch:
      return {
        status: ClaimStatus.Mismatch,
        storedFingerprint: String(a),
        state: b === 'pending' ? RecordState.Pending : RecordState.Completed,
      };
    case ClaimReplyCode.Corrupt:
      return { status: ClaimStatus.Corrupt, reason: String(a) };
    case ClaimReplyCode.CompletedWithoutResult:
      return { status: ClaimStatus.Completed, payload: null, fencingToken: Number(a) };
    default:
      throw new UnexpectedReplyError(reply);
  }
}

/** complete/renew/release/store-if-absent (scripts and SQL functions) answer 1 (done) or 0 (not the owner / already there). */
export function flagOf(reply: unknown): boolean {
  if (reply === 1) return true;
  if (reply === 0) return false;
  throw new UnexpectedReplyError(reply);
}
