import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { CLOCK_SLACK_MS, busyFor } from '@retry-safe/testing';
import { Deadlines } from '../../src/deadline.js';

const never = () => new Promise<never>(() => {});
const timedOut = () => new Error('timed out');
const mapped = (error: unknown) => new Error(`mapped: ${String(error)}`);

/** When `promise` settled, in ms after `start`, and how. */
async function settled(promise: Promise<unknown>, start: number) {
  try {
    return { value: await promise, afterMs: performance.now() - start };
  } catch (error) {
    return { error: (error as Error).message, afterMs: performance.now() - start };
  }
}

describe('Deadlines', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('gives up on every unanswered call after its own ms, never earlier, with one timer for calls made together', async () => {
    const deadlines = new Deadlines();
    const timers = jest.spyOn(globalThis, 'setTimeout');
    const start = performance.now();
    const calls = Array.from({ length: 100 }, () =>
      settled(deadlines.bound(never(), 40, timedOut, mapped), start),
    );
    const spreadMs = performance.now() - start;
    const results = await Promise.all(calls);
    for (const result of results) {
      expect(result.error).toBe('timed out');
      expect(result.afterMs).toBeGreaterThanOrEqual(40 - CLOCK_SLACK_MS);
    }
    // One timer for the oldest call, then a re-arm for those not yet due: each re-arm waits at least 1 ms, so
    // calls made within `spreadMs` of each other take at most ceil(spreadMs) of them (a busy machine can stretch
    // the loop over a few ms). A timer per call would be 100.
    expect(timers.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(timers.mock.calls.length).toBeLessThanOrEqual(2 + Math.ceil(spreadMs));
  });

  it('a call made later ends later: its bound runs from its own start', async () => {
    const deadlines = new Deadlines();
    const start = performance.now();
    const first = settled(deadlines.bound(never(), 60, timedOut, mapped), start);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = settled(deadlines.bound(never(), 60, timedOut, mapped), start);
    const [a, b] = await Promise.all([first, second]);
    expect(a.afterMs).toBeGreaterThanOrEqual(60 - CLOCK_SLACK_MS);
    expect(b.afterMs).toBeGreaterThanOrEqual(90 - CLOCK_SLACK_MS);
  });

  it('answers and failures pass through (failures mapped) and are never timed out afterwards', async () => {
    const deadlines = new Deadlines();
    const start = performance.now();
    const ok = deadlines.bound(Promise.resolve('ok'), 20, timedOut, mapped);
    const failed = settled(deadlines.bound(Promise.reject(new Error('down')), 20, timedOut, mapped), start);
    const slow = settled(
      deadlines.bound(new Promise((resolve) => setTimeout(resolve, 5, 'late')), 20, timedOut, mapped),
      start,
    );
    expect(await ok).toBe('ok');
    expect((await failed).error).toBe('mapped: Error: down');
    expect((await slow).value).toBe('late');
    // Outlive the bound: a settled call must not reject (an unhandled rejection would fail the test).
    await new Promise((resolve) => setTimeout(resolve, 40));
  });

  it('keeps calls with different bounds apart', async () => {
    const deadlines = new Deadlines();
    const start = performance.now();
    const order: string[] = [];
    const call = (label: string, ms: number) =>
      settled(deadlines.bound(never(), ms, timedOut, mapped), start).finally(() => order.push(label));
    const [long, short] = await Promise.all([call('long', 80), call('short', 20)]);
    expect(order).toEqual(['short', 'long']);
    expect(short.afterMs).toBeGreaterThanOrEqual(20 - CLOCK_SLACK_MS);
    expect(long.afterMs).toBeGreaterThanOrEqual(80 - CLOCK_SLACK_MS);
  });

  it('an answer that arrived while this process was busy past the bound is read, not timed out', async () => {
    const deadlines = new Deadlines();
    // A message port delivers like a socket: the answer waits in the I/O phase of the loop, which runs after the
    // timers phase. Expiring in the timer itself would blame the store for this process's own lag (scenario 7,
    // 200 requests on two busy replicas, answered 503 when Redis had replied in microseconds).
    const { port1, port2 } = new MessageChannel();
    try {
      const answer = new Promise((resolve) => port1.once('message', resolve));
      const bounded = deadlines.bound(answer, 20, timedOut, mapped);
      await busyFor(60, () => port2.postMessage('reply'));
      await expect(bounded).resolves.toBe('reply');
      // Still a bound: unanswered calls made in the same busy stretch time out.
      const start = performance.now();
      const unanswered = settled(deadlines.bound(never(), 20, timedOut, mapped), start);
      await busyFor(40);
      expect((await unanswered).error).toBe('timed out');
    } finally {
      port1.close();
    }
  });
});
