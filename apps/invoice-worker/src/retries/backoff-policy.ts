/** The retry policy of transient failures: capped exponential backoff with full jitter, inside a horizon. */
export interface BackoffPolicy {
  /** `WORKER_BACKOFF_BASE_MS`: the ceiling of the first retry's delay; it doubles with every delivery. */
  readonly baseMs: number;
  /** `WORKER_BACKOFF_CAP_MS`: no two attempts of a job are further apart than this. */
  readonly capMs: number;
  /** `WORKER_RETRY_HORIZON_MS`: how long after its publication a job is still retried. */
  readonly horizonMs: number;
}

/** Defaults of {@link BackoffPolicy}: 1 s base, at most 60 s between attempts, retried for 24 hours. */
export const DEFAULT_BACKOFF_POLICY: BackoffPolicy = {
  baseMs: 1_000,
  capMs: 60_000,
  horizonMs: 24 * 60 * 60 * 1000,
};

/**
 * Full jitter (AWS Builders' Library): a delay drawn uniformly in `[0, min(cap, base * 2^(retry-1))]`. Spreading
 * the retries over the whole range is what stops jobs that failed together in an outage from all coming back
 * together when the provider recovers.
 * @param retry 1 for the first retry.
 * @param random a number in [0, 1) (`Math.random`).
 */
export function fullJitterDelayMs(retry: number, policy: BackoffPolicy, random: () => number): number {
  // 2^31 ms is 24 days: past that exponent the cap wins anyway, and the power stays finite.
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(retry - 1, 0), 31));
  return Math.floor(random() * (ceiling + 1));
}

/** When a transient failure is retried, or that it is not: the horizon has passed. */
export type RetryDecision =
  | {
      readonly retry: true;
      /** Epoch ms of the next attempt. */ readonly at: number;
      readonly delayMs: number;
    }
  | { readonly retry: false; /** Epoch ms the horizon ended. */ readonly horizonEndedAt: number };

/**
 * Decides the next attempt of a job published at `publishedAt` that just failed transiently for the `retry`-th
 * time. The last retry is moved up to the horizon's end rather than dropped, so a job gets an attempt at its very
 * end; a failure at or after the end is final.
 */
export function nextRetry(
  now: number,
  publishedAt: number,
  retry: number,
  policy: BackoffPolicy,
  random: () => number,
): RetryDecision {
  const horizonEndedAt = publishedAt + policy.horizonMs;
  if (now >= horizonEndedAt) return { retry: false, horizonEndedAt };
  const at = Math.min(now + fullJitterDelayMs(retry, policy, random), horizonEndedAt);
  return { retry: true, at, delayMs: at - now };
}

/**
 * How long the whole queue pauses for a provider's 429: its `Retry-After` as given (the provider knows its quota
 * better than our cap), at least 1 ms and at most the horizon; without a hint, the policy's base.
 */
export function throttleDelayMs(retryAfterMs: number | undefined, policy: BackoffPolicy): number {
  const wanted = retryAfterMs === undefined || retryAfterMs <= 0 ? policy.baseMs : retryAfterMs;
  return Math.max(1, Math.min(wanted, policy.horizonMs));
}

/** Who decides when a transiently failed job comes back. */
export const RetryMode = {
  /** The default: this worker, by {@link nextRetry}, until the horizon; then the dead-letter queue. */
  Horizon: 'horizon',
  /**
   * Demonstration only (`PUT /__config`, FAULTS_ENABLED): the producer's BullMQ `attempts` and `backoff`, the
   * design that spends 5 attempts in 15 seconds and leaves an outage's jobs failed for good.
   */
  BullmqAttempts: 'bullmq-attempts',
} as const;
/** One of {@link RetryMode}'s values. */
export type RetryMode = (typeof RetryMode)[keyof typeof RetryMode];
