import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_BACKOFF_POLICY,
  fullJitterDelayMs,
  nextRetry,
  throttleDelayMs,
} from '../../src/retries/backoff-policy.js';

const policy = { baseMs: 1_000, capMs: 60_000, horizonMs: 86_400_000 };
// The largest value Math.random can return, and the smallest.
const top = () => 1 - Number.EPSILON;
const bottom = () => 0;

describe('fullJitterDelayMs', () => {
  it('draws in [0, base * 2^(retry-1)], doubling per retry', () => {
    expect([1, 2, 3, 4].map((retry) => fullJitterDelayMs(retry, policy, top))).toEqual([
      1_000, 2_000, 4_000, 8_000,
    ]);
    expect(fullJitterDelayMs(4, policy, bottom)).toBe(0);
    expect(fullJitterDelayMs(4, policy, () => 0.5)).toBe(4_000);
  });

  it('never exceeds the cap, however many retries (and stays finite)', () => {
    for (const retry of [7, 8, 50, 10_000]) expect(fullJitterDelayMs(retry, policy, top)).toBe(60_000);
  });

  it('spreads jobs that failed together over the whole range (full jitter, not a band near the ceiling)', () => {
    const delays = Array.from({ length: 1_000 }, () => fullJitterDelayMs(10, policy, Math.random));
    expect(Math.min(...delays)).toBeLessThan(60_000 * 0.1);
    expect(Math.max(...delays)).toBeGreaterThan(60_000 * 0.9);
    expect(delays.every((d) => d >= 0 && d <= 60_000)).toBe(true);
  });
});

describe('nextRetry', () => {
  const published = 1_000_000;

  it('schedules the retry at now + the jittered delay inside the horizon', () => {
    expect(nextRetry(published + 5_000, published, 3, policy, top)).toEqual({
      retry: true,
      at: published + 5_000 + 4_000,
      delayMs: 4_000,
    });
  });

  it('moves a retry that would land past the horizon up to its end: one last attempt there', () => {
    const now = published + policy.horizonMs - 10_000;
    expect(nextRetry(now, published, 20, policy, top)).toEqual({
      retry: true,
      at: published + policy.horizonMs,
      delayMs: 10_000,
    });
  });

  it('a failure at or after the end of the horizon is final', () => {
    const end = published + policy.horizonMs;
    expect(nextRetry(end, published, 20, policy, top)).toEqual({ retry: false, horizonEndedAt: end });
    expect(nextRetry(end + 1, published, 1, policy, bottom)).toEqual({ retry: false, horizonEndedAt: end });
  });

  it('the defaults: 60 s cap and a 24 h horizon', () => {
    expect(DEFAULT_BACKOFF_POLICY).toEqual({ baseMs: 1_000, capMs: 60_000, horizonMs: 86_400_000 });
  });
});

describe('throttleDelayMs', () => {
  it("honours the provider's Retry-After, even beyond the cap", () => {
    expect(throttleDelayMs(1_000, policy)).toBe(1_000);
    expect(throttleDelayMs(3_600_000, policy)).toBe(3_600_000);
  });

  it('without a hint, pauses for the base; never longer than the horizon', () => {
    expect(throttleDelayMs(undefined, policy)).toBe(1_000);
    expect(throttleDelayMs(0, policy)).toBe(1_000);
    expect(throttleDelayMs(30 * 86_400_000, policy)).toBe(86_400_000);
  });
});
