import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ClaimRequest } from '../../src/store.js';
import { GiveBacks, MAX_PENDING_GIVE_BACKS, type GiveBackSteps } from '../../src/postgres/give-backs.js';

const claim = (key: string, leaseMs = 60_000): ClaimRequest => ({
  operation: 'give.back',
  key,
  owner: `owner-${key}`,
  fingerprint: 'fp',
  leaseMs,
  retainMs: 120_000,
});
const backend = (pid: number) => ({ pid, checkedOutAt: 0 });

/** Steps that log each call (with the fake clock's time) and answer as `outcome` says at that moment. */
function steps(outcome: { endBackend: 'ok' | 'fail'; release: 'ok' | 'fail' }) {
  const calls: { step: 'endBackend' | 'release'; what: string; at: number }[] = [];
  const answer = (ok: boolean) => (ok ? Promise.resolve() : Promise.reject(new Error('unreachable')));
  const give: GiveBackSteps = {
    endBackend: (sentTo) => {
      calls.push({ step: 'endBackend', what: String(sentTo.pid), at: Date.now() });
      return answer(outcome.endBackend === 'ok');
    },
    release: (request) => {
      calls.push({ step: 'release', what: request.key, at: Date.now() });
      return answer(outcome.release === 'ok');
    },
  };
  return { give, calls, outcome };
}

describe('GiveBacks', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('keeps at most 1 000 give-backs: past that the oldest is dropped, never tried', async () => {
    const s = steps({ endBackend: 'ok', release: 'ok' });
    const giveBacks = new GiveBacks(s.give);
    for (let i = 0; i <= MAX_PENDING_GIVE_BACKS; i++) giveBacks.add(claim(`k${i}`), backend(i));
    expect(MAX_PENDING_GIVE_BACKS).toBe(1_000);
    expect(giveBacks.size).toBe(1_000);

    // The dropped one (k0) is not known any more; the newest is.
    await giveBacks.settle({ operation: 'give.back', key: 'k0' });
    expect(s.calls).toEqual([]);
    await jest.runOnlyPendingTimersAsync();
    expect(giveBacks.size).toBe(0);
    expect(s.calls.filter((c) => c.step === 'release').map((c) => c.what)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => `k${i + 1}`),
    );
  });

  it('retries a failing give-back after 100 ms, doubling up to 2 s, and resets the pause once one succeeds', async () => {
    const s = steps({ endBackend: 'fail', release: 'ok' });
    const giveBacks = new GiveBacks(s.give);
    giveBacks.add(claim('k-down'), backend(7));
    await jest.advanceTimersByTimeAsync(10_000);

    const at = s.calls.map((c) => c.at);
    const pauses = at.slice(1).map((t, i) => t - at[i]!);
    expect(pauses).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000]); // tries at 0 .. 9 100
    expect(giveBacks.size).toBe(1);

    // PostgreSQL answers again: the next try succeeds, and a later failure starts over at 100 ms.
    s.outcome.endBackend = 'ok';
    await jest.advanceTimersByTimeAsync(2_000);
    expect(giveBacks.size).toBe(0);
    s.outcome.endBackend = 'fail';
    s.calls.length = 0;
    giveBacks.add(claim('k-down-again'), backend(8));
    await jest.advanceTimersByTimeAsync(150);
    expect(s.calls.map((c) => c.at - s.calls[0]!.at)).toEqual([0, 100]);
    giveBacks.close();
  });

  it('ends the backend once, then retries only the release', async () => {
    const s = steps({ endBackend: 'ok', release: 'fail' });
    const giveBacks = new GiveBacks(s.give);
    giveBacks.add(claim('k-release'), backend(9));
    await jest.advanceTimersByTimeAsync(350);
    expect(s.calls.map((c) => c.step)).toEqual(['endBackend', 'release', 'release', 'release']);
    giveBacks.close();
  });

  it('drops a give-back at the end of its lease: nothing left to give back, no more tries', async () => {
    const s = steps({ endBackend: 'fail', release: 'ok' });
    const giveBacks = new GiveBacks(s.give);
    giveBacks.add(claim('k-lease', 1_000), backend(3));
    await jest.advanceTimersByTimeAsync(900);
    const triesInLease = s.calls.length;
    expect(triesInLease).toBe(4); // at 0, 100, 300, 700
    await jest.advanceTimersByTimeAsync(1_600); // the try at 1 500 finds the lease over
    expect(giveBacks.size).toBe(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(s.calls).toHaveLength(triesInLease);
  });

  it("gives this process' unanswered claim of a key back at once when the key is claimed again", async () => {
    const s = steps({ endBackend: 'ok', release: 'ok' });
    const giveBacks = new GiveBacks(s.give);
    giveBacks.add(claim('k-other'), backend(1));
    giveBacks.add(claim('k-retry'), backend(2));

    // No timer has fired: the retry's settle does the give-back of its own key itself, ahead of the queue.
    await giveBacks.settle({ operation: 'give.back', key: 'k-retry' });
    expect(s.calls.map((c) => `${c.step}:${c.what}`)).toEqual(['endBackend:2', 'release:k-retry']);
    expect(giveBacks.size).toBe(1);
    // A key with nothing to give back costs nothing.
    await giveBacks.settle({ operation: 'give.back', key: 'k-none' });
    expect(s.calls).toHaveLength(2);
    giveBacks.close();
  });

  it('a settle that fails (PostgreSQL still down) does not fail the claim, and the give-back stays queued', async () => {
    const s = steps({ endBackend: 'fail', release: 'ok' });
    const giveBacks = new GiveBacks(s.give);
    giveBacks.add(claim('k-still-down'), backend(4));
    await expect(giveBacks.settle({ operation: 'give.back', key: 'k-still-down' })).resolves.toBeUndefined();
    expect(giveBacks.size).toBe(1);
    giveBacks.close();
    expect(giveBacks.size).toBe(0);
  });
});
