import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from '@jest/globals';
import { CLOCK_SLACK_MS, busyFor } from '@retry-safe/testing';
import { answersWithin } from '../../src/index.js';

describe('answersWithin (readiness checks)', () => {
  it('an answer that arrived while the thread was busy past the bound counts', async () => {
    // A message port delivers like a socket: in the I/O phase, after the timers phase in which the bound is due.
    const { port1, port2 } = new MessageChannel();
    try {
      const answered = answersWithin(() => new Promise((resolve) => port1.once('message', resolve)), 20);
      await busyFor(60, () => port2.postMessage('pong'));
      expect(await answered).toBe(true);
    } finally {
      port1.close();
    }
  });

  it('no answer within the bound is false, once the bound has passed', async () => {
    const started = performance.now();
    expect(await answersWithin(() => new Promise(() => {}), 30)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(30 - CLOCK_SLACK_MS);
  });

  it('a failed ping is false at once', async () => {
    expect(await answersWithin(() => Promise.reject(new Error('ECONNREFUSED')), 10_000)).toBe(false);
  });
});
