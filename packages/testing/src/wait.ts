import { setTimeout as delay } from 'node:timers/promises';

/**
 * How far a lower bound on a measured duration may fall short: timers never fire early, but `Date.now()` truncates
 * to the millisecond on each side of the measurement (and Redis' clock rounds its PX expiry the same way), so a
 * 300 ms timer can read as 299 ms. Lower bounds subtract this; upper bounds need their own, larger allowance.
 */
export const CLOCK_SLACK_MS = 2;

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long {@link waitFor} keeps trying, and how often. */
export interface WaitForOptions {
  /** @default 10_000 */
  timeoutMs?: number;
  /** @default 25 */
  intervalMs?: number;
  /** Gives up at once when it aborts (what is waited for can no longer happen), rejecting with its reason. */
  signal?: AbortSignal;
}

/**
 * Resolves with what `probe` resolves to, retrying every `intervalMs` until `timeoutMs` passes; then rejects with
 * `what` and the probe's last error (as message and `cause`).
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  { timeoutMs = 10_000, intervalMs = 25, signal }: WaitForOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await probe();
    } catch (error) {
      lastError = error;
    }
    signal?.throwIfAborted();
    if (Date.now() > deadline) {
      const last = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${last}`, { cause: lastError });
    }
    // An abort ends the sleep at once (its AbortError is dropped): the loop's first check rejects with the reason.
    await delay(intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * Keeps this thread busy for `ms` after `first()`, as a burst of requests on a loaded CPU does, in the event loop's
 * check phase: the next iteration starts with its timers, before the I/O that arrived meanwhile (a reply in a
 * socket, a message on a port) is read. For tests of timeouts that must not blame a peer for this process's lag.
 */
export function busyFor(ms: number, first: () => void = () => {}): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      first();
      const end = performance.now() + ms;
      while (performance.now() < end) {
        // Spinning on purpose: the point is a thread that cannot read its sockets.
      }
      resolve();
    }),
  );
}

/**
 * Resolves once `signal` aborts, at once if it already has. An `'abort'` listener added after the abort never
 * fires: an action that awaits something before it listens (a store call while its lease renews on another
 * connection) can be aborted in between, and a bare listener would then wait forever.
 */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
