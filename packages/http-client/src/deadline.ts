/**
 * Reads the chain deadline from an incoming `x-request-deadline` header (absolute epoch milliseconds).
 *
 * - Missing, repeated or malformed: `now + defaultBudgetMs` (this hop starts a budget of its own).
 * - Further away than `now + maxBudgetMs`: clamped, so a caller cannot make a hop retry forever.
 * - Already in the past: returned as is; the next call fails fast with `UPSTREAM_TIMEOUT`.
 *
 * Deadlines are wall-clock instants, so hops must run with synchronised clocks (true for one host or NTP).
 */
export function parseDeadline(
  headerValue: string | readonly string[] | undefined | null,
  now: number,
  defaultBudgetMs: number,
  maxBudgetMs: number,
): number {
  const max = now + maxBudgetMs;
  const fallback = Math.min(now + defaultBudgetMs, max);
  if (typeof headerValue !== 'string' || !/^\d{1,16}$/.test(headerValue.trim())) {
    return fallback;
  }
  const deadline = Number(headerValue.trim());
  if (!Number.isSafeInteger(deadline)) {
    return fallback;
  }
  return Math.min(deadline, max);
}

/** Milliseconds left until `deadline` (never negative). */
export function remainingMs(deadline: number, now: number = Date.now()): number {
  return Math.max(0, deadline - now);
}
