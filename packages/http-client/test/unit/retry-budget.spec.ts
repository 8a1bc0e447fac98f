import { describe, expect, it } from '@jest/globals';
import { RetryBudget } from '../../src/index.js';

/** Retries a budget grants over `calls` calls that each want `wanted` retries. */
function granted(budget: RetryBudget, calls: number, wanted: number): number {
  let retries = 0;
  for (let call = 0; call < calls; call++) {
    budget.deposit();
    for (let retry = 0; retry < wanted; retry++) if (budget.tryWithdraw()) retries++;
  }
  return retries;
}

describe('RetryBudget', () => {
  it('grants the burst at once, then one retry per ten calls (ratio 0.1)', () => {
    const budget = new RetryBudget({ ratio: 0.1, burst: 10 });
    expect(granted(budget, 1, 20)).toBe(10);
    expect(budget.available).toBe(0);
    // 100 more calls earn 10 retries, whatever they ask for.
    expect(granted(budget, 100, 3)).toBe(10);
  });

  it('bounds retries by ratio x calls + burst under a sustained outage', () => {
    const budget = new RetryBudget();
    const calls = 500;
    const retries = granted(budget, calls, 3);
    expect(retries).toBeLessThanOrEqual(calls * 0.1 + 10);
    expect(retries).toBeGreaterThanOrEqual(calls * 0.1);
  });

  it('never holds more than the burst, however many calls succeed', () => {
    const budget = new RetryBudget({ ratio: 0.5, burst: 2 });
    for (let call = 0; call < 100; call++) budget.deposit();
    expect(budget.available).toBe(2);
    expect(granted(budget, 0, 0)).toBe(0);
  });

  it('refuses bad options with a clear error', () => {
    expect(() => new RetryBudget({ ratio: 2 })).toThrow('ratio must be in [0, 1]');
    expect(() => new RetryBudget({ burst: -1 })).toThrow('burst must be a non-negative integer');
    expect(() => new RetryBudget({ burst: 1.5 })).toThrow('burst must be a non-negative integer');
  });
});
