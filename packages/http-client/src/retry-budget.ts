/** Options of a {@link RetryBudget}. */
export interface RetryBudgetOptions {
  /**
   * Retries earned by each call: over any period, retries stay below `ratio` times the calls made, plus `burst`.
   * @default 0.1
   */
  ratio?: number;
  /**
   * Retries that may run at once on top of the ratio (the bucket's size; it starts full).
   * @default 10
   */
  burst?: number;
}

/** The defaults of {@link RetryBudgetOptions} (Google SRE: retries at most 10 % of requests). */
export const DEFAULT_RETRY_BUDGET = { ratio: 0.1, burst: 10 } as const;

/**
 * A token bucket shared by every call of one client, in the spirit of gRPC's retry throttling (proposal A6) and
 * Finagle's `RetryBudget`: each call deposits `ratio` of a token (the bucket holds at most `burst`), each retry
 * withdraws a whole one, and a retry without a token is not made. A short blip is retried in full (the burst);
 * a sustained outage costs at most `ratio` extra calls per call instead of `retries` extra calls per call.
 */
export class RetryBudget {
  private readonly ratio: number;
  private readonly burst: number;
  private tokens: number;

  constructor(options: RetryBudgetOptions = {}) {
    const ratio = options.ratio ?? DEFAULT_RETRY_BUDGET.ratio;
    const burst = options.burst ?? DEFAULT_RETRY_BUDGET.burst;
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
      throw new RangeError(`retry budget ratio must be in [0, 1], got ${String(ratio)}`);
    }
    if (!Number.isInteger(burst) || burst < 0) {
      throw new RangeError(`retry budget burst must be a non-negative integer, got ${String(burst)}`);
    }
    this.ratio = ratio;
    this.burst = burst;
    this.tokens = burst;
  }

  /** A new call (not a retry) earns its share of a retry. */
  deposit(): void {
    this.tokens = Math.min(this.burst, this.tokens + this.ratio);
  }

  /** Takes the token of one retry; false (and nothing taken) when the budget is spent. */
  tryWithdraw(): boolean {
    // The epsilon absorbs the float error of adding 0.1 ten times.
    if (this.tokens < 1 - 1e-9) return false;
    this.tokens = Math.max(0, this.tokens - 1);
    return true;
  }

  /** Retries available right now (for metrics and tests). */
  get available(): number {
    return Math.floor(this.tokens + 1e-9);
  }
}
