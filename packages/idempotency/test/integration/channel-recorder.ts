import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { waitFor } from '@retry-safe/testing';
import { IdempotencyChannel } from '../../src/index.js';

/**
 * Records every message of every idempotency channel for a suite (subscribed in `beforeAll`, unsubscribed in
 * `afterAll`), in order, as `[short channel name, message]`.
 */
export function recordChannels() {
  const published: [string, Record<string, unknown>][] = [];
  const listeners = Object.values(IdempotencyChannel).map((name) => {
    const listener = (message: unknown) =>
      published.push([name.replace('retry-safe:idempotency:', ''), message as Record<string, unknown>]);
    return [name, listener] as const;
  });
  beforeAll(() => {
    for (const [name, listener] of listeners) subscribe(name, listener);
  });
  afterAll(() => {
    for (const [name, listener] of listeners) unsubscribe(name, listener);
  });
  return {
    published,
    /** Forgets what was recorded (before each test). */
    clear: () => void (published.length = 0),
    /** Resolves once `count` messages were published (waitFor retries until its probe stops throwing). */
    messagesPublished: (what: string, count: number) =>
      waitFor(what, async () => {
        if (published.length < count) throw new Error(`${published.length} messages so far`);
      }),
    /** The messages so far, with `durationMs` checked (a number >= 0) and left out, so the rest compares exactly. */
    messages(): [string, Record<string, unknown>][] {
      return published.map(([name, { durationMs, ...rest }]) => {
        expect(typeof durationMs).toBe('number');
        expect(durationMs as number).toBeGreaterThanOrEqual(0);
        return [name, rest];
      });
    },
  };
}
