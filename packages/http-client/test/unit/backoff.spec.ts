import { describe, expect, it } from '@jest/globals';
import { backoffDelayMs, retryAfterMs } from '../../src/backoff.js';

describe('backoffDelayMs', () => {
  const at = (random: number) => ({ baseDelayMs: 100, maxDelayMs: 1000, random: () => random });

  it('doubles per retry, with jitter between half and all of the step', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, at(0)))).toEqual([50, 100, 200, 400]);
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, at(0.999999)))).toEqual([100, 200, 400, 800]);
  });

  it('never exceeds maxDelayMs, even for a long Retry-After', () => {
    expect(backoffDelayMs(10, at(0.999999))).toBe(1000);
    expect(backoffDelayMs(1, at(0), 30_000)).toBe(1000);
    expect(backoffDelayMs(1, at(0), 700)).toBe(700);
  });
});

describe('retryAfterMs', () => {
  it('reads delta seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs(undefined, now)).toBe(0);
    expect(retryAfterMs('later', now)).toBe(0);
  });
});
