import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { IntervalLoop, type IntervalLoopOptions } from '../../src/interval-loop.js';

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const OPTIONS: IntervalLoopOptions = { name: 'test loop', periodMs: 1_000, tickTimeoutMs: 5_000 };

describe('IntervalLoop', () => {
  const loops: IntervalLoop<unknown>[] = [];
  const loopOf = <T>(
    tick: (signal: AbortSignal) => Promise<T>,
    options: Partial<IntervalLoopOptions> = {},
  ) => {
    const loop = new IntervalLoop<T>({ ...OPTIONS, ...options }, tick);
    loops.push(loop as IntervalLoop<unknown>);
    return loop;
  };

  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    await Promise.all(loops.splice(0).map((loop) => loop.stop()));
  });

  it('ticks every period from the end of the previous tick, the first one period after start', async () => {
    jest.useFakeTimers();
    let ticks = 0;
    const loop = loopOf(async () => {
      ticks += 1;
    });
    loop.onModuleInit();
    await jest.advanceTimersByTimeAsync(999);
    expect(ticks).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(ticks).toBe(4);
  });

  it('with immediate, ticks at once on start; start twice starts one loop', async () => {
    jest.useFakeTimers();
    let ticks = 0;
    const loop = loopOf(
      async () => {
        ticks += 1;
      },
      { immediate: true },
    );
    loop.start();
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(2);
  });

  it('never overlaps ticks: wakes during a tick make one more tick right after it', async () => {
    const gate = deferred();
    let running = 0;
    let most = 0;
    let ticks = 0;
    const loop = loopOf(async () => {
      running += 1;
      most = Math.max(most, running);
      ticks += 1;
      if (ticks === 1) await gate.promise;
      running -= 1;
    });
    loop.wake();
    loop.wake();
    loop.wake();
    const joined = loop.run();
    await Promise.resolve();
    expect(ticks).toBe(1);
    gate.resolve();
    await joined;
    await loop.idle();
    expect([ticks, most]).toEqual([2, 1]);
  });

  it('run() resolves to the tick result, joining the running tick', async () => {
    const gate = deferred<number>();
    let calls = 0;
    const loop = loopOf(() => {
      calls += 1;
      return gate.promise;
    });
    const first = loop.run();
    const second = loop.run();
    gate.resolve(7);
    expect([await first, await second, calls]).toEqual([7, 7, 1]);
  });

  it('logs a failed tick (sync or async), never throws it, and keeps ticking after the period', async () => {
    jest.useFakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let ticks = 0;
    const loop = loopOf(
      (): Promise<void> => {
        ticks += 1;
        if (ticks === 1) throw new Error('sync boom');
        if (ticks === 2) return Promise.reject(new Error('async boom'));
        return Promise.resolve();
      },
      { failureMessage: 'the sweep failed' },
    );
    loop.start();
    expect(await loop.run()).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(2);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(3);
    expect(warn.mock.calls.map(([entry]) => entry)).toEqual([
      { msg: 'the sweep failed', error: 'Error: sync boom' },
      { msg: 'the sweep failed', error: 'Error: async boom' },
    ]);
  });

  it('a failed tick drops the wake asked for during it', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let ticks = 0;
    const loop = loopOf(async () => {
      ticks += 1;
      loop.wake();
      throw new Error('down');
    });
    await loop.run();
    await loop.idle();
    expect(ticks).toBe(1);
  });

  it('aborts the signal of a tick past its bound, logs it, and starts no other tick until it ends', async () => {
    jest.useFakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let ticks = 0;
    let aborted: unknown;
    const loop = loopOf(
      (signal) => {
        ticks += 1;
        return new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            // Ends a while after the abort: the loop waits for it.
            setTimeout(resolve, 500);
          }),
        );
      },
      { periodMs: 100, tickTimeoutMs: 300, immediate: true },
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(300);
    expect(String(aborted)).toBe('Error: test loop: tick ran past 300 ms');
    expect(warn).toHaveBeenCalledWith({
      msg: 'test loop: tick ran past its bound; aborting it',
      boundMs: 300,
    });
    await jest.advanceTimersByTimeAsync(499);
    expect(ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(101);
    expect(ticks).toBe(2);
  });

  it('stop aborts the running tick, waits for it to end, and no tick starts after it', async () => {
    let ended = false;
    let ticks = 0;
    const loop = loopOf(
      async (signal) => {
        ticks += 1;
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        await new Promise((resolve) => setTimeout(resolve, 20));
        ended = true;
      },
      { periodMs: 10, immediate: true },
    );
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await loop.onModuleDestroy();
    expect(ended).toBe(true);
    loop.wake();
    expect(await loop.run()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ticks).toBe(1);
  });

  it('jitter draws each wait in [period * (1 - jitter), period]', async () => {
    jest.useFakeTimers();
    jest.spyOn(Math, 'random').mockReturnValue(1);
    let ticks = 0;
    const loop = loopOf(
      async () => {
        ticks += 1;
      },
      { jitter: 0.5 },
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(499);
    expect(ticks).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(1);
  });

  it.each([
    [{ periodMs: 0 }, 'periodMs must be a positive integer, got 0'],
    [{ tickTimeoutMs: 1.5 }, 'tickTimeoutMs must be a positive integer, got 1.5'],
    [{ jitter: 2 }, 'jitter must be between 0 and 1, got 2'],
  ])('refuses %j', (options, message) => {
    expect(() => new IntervalLoop({ ...OPTIONS, ...options }, async () => undefined)).toThrow(message);
  });
});
