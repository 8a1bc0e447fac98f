/** Inputs of {@link backoffDelayMs}. */
export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** A number in [0, 1). */
  random: () => number;
}

/**
 * Exponential backoff with "equal jitter": the n-th retry waits between half and all of
 * `min(maxDelayMs, baseDelayMs * 2^(n-1))`, so delays grow yet hops that failed together do not retry in step.
 * A `Retry-After` hint (ms) raises the delay, but never above `maxDelayMs`.
 */
export function backoffDelayMs(retry: number, options: BackoffOptions, retryAfterMs = 0): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = ceiling / 2 + (options.random() * ceiling) / 2;
  return Math.round(Math.max(jittered, Math.min(retryAfterMs, options.maxDelayMs)));
}

/** Parses a `Retry-After` header (delta seconds or HTTP date) into milliseconds; 0 when absent or invalid. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number {
  if (value === undefined || value.trim() === '') {
    return 0;
  }
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed) * 1000;
  }
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? 0 : Math.max(0, date - now);
}
