import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from '@jest/globals';
import { sleep } from '@retry-safe/testing';
import { IdempotencyErrorCode, InvalidIdempotencyOptionsError } from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

const EXPIRED = 50_000;

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** Claims and completes `count` keys `<prefix><n>`, each kept `ttlMs`, with a payload of about 200 characters. */
async function fill(store: MemoryIdempotencyStore, prefix: string, count: number, ttlMs: number) {
  const payload = JSON.stringify({ id: 'ch_x', note: 'x'.repeat(180) });
  for (let n = 0; n < count; n++) {
    const id = { operation: 'op', key: `${prefix}${n}` };
    const owner = `owner-${prefix}${n}`;
    await store.claim({ ...id, owner, fingerprint: 'fp', leaseMs: 1_000, retainMs: ttlMs });
    await store.complete({ ...id, owner, payload: `${payload}${n}`, ttlMs });
  }
}

/**
 * A real `gc()` when the flag can be turned on at run time (Node allows it; the function appears in contexts made
 * afterwards), so the heap can be measured after a sweep instead of guessed.
 */
function collector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

describe('MemoryIdempotencyStore sweeps expired records', () => {
  const stores: MemoryIdempotencyStore[] = [];
  const made = (...args: ConstructorParameters<typeof MemoryIdempotencyStore>) => {
    const store = new MemoryIdempotencyStore(...args);
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it(`removes ${EXPIRED} expired records in one sweep, keeps the live ones, and gives their memory back`, async () => {
    const gc = collector();
    const clock = manualClock();
    const store = made({ now: clock.now, sweepIntervalMs: 0 });
    gc?.();
    const baseline = process.memoryUsage().heapUsed;
    await fill(store, 'old-', EXPIRED, 1_000);
    await fill(store, 'live-', 100, 60_000);
    gc?.();
    const filled = process.memoryUsage().heapUsed;
    expect(store.size).toBe(EXPIRED + 100);

    clock.advance(1_000);
    // Nothing touched the old keys again: before the sweep they are all still held.
    expect(store.size).toBe(EXPIRED + 100);
    expect(store.sweep()).toBe(EXPIRED);
    expect(store.size).toBe(100);
    expect(store.entries().map((e) => e.id)).toEqual(Array.from({ length: 100 }, (_, n) => `op:live-${n}`));
    // A live record still replays after the sweep.
    const replay = await store.claim({
      operation: 'op',
      key: 'live-7',
      owner: 'someone-else',
      fingerprint: 'fp',
      leaseMs: 1_000,
      retainMs: 60_000,
    });
    expect(replay).toMatchObject({ status: 'completed' });
    expect(store.sweep()).toBe(0);

    if (gc !== undefined) {
      gc();
      const swept = process.memoryUsage().heapUsed;
      const grown = filled - baseline;
      // 50 000 records of ~200 characters are several MB: most of it must be back once they are gone.
      expect(grown).toBeGreaterThan(5 * 1024 * 1024);
      expect(swept - baseline).toBeLessThan(grown / 4);
    }
    clock.advance(60_000);
    expect(store.sweep()).toBe(100);
    expect(store.size).toBe(0);
  });

  it('sweeps on its own every sweepIntervalMs', async () => {
    const clock = manualClock();
    const store = made({ now: clock.now, sweepIntervalMs: 20 });
    await fill(store, 'k', 10, 1_000);
    await fill(store, 'live', 2, 60_000);
    clock.advance(1_000);
    await sleep(200);
    expect(store.size).toBe(2);
  });

  it('stops sweeping once closed (the store still works)', async () => {
    const clock = manualClock();
    const store = made({ now: clock.now, sweepIntervalMs: 20 });
    await fill(store, 'k', 10, 1_000);
    await store.close();
    clock.advance(1_000);
    await sleep(150);
    expect(store.size).toBe(10);
    expect(store.sweep()).toBe(10);
    expect(
      await store.claim({
        operation: 'op',
        key: 'k1',
        owner: 'o',
        fingerprint: '',
        leaseMs: 50,
        retainMs: 50,
      }),
    ).toEqual({ status: 'acquired', fencingToken: 11 });
  });

  it('keeps no timer that holds the process open, closed or not', () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const open = made({ sweepIntervalMs: 10 });
    const withDefault = made();
    expect(timers()).toBe(before);
    expect(open.size + withDefault.size).toBe(0);
    // The check itself can fail: a referenced interval is counted.
    const referenced = setInterval(() => undefined, 10);
    expect(timers()).toBe(before + 1);
    clearInterval(referenced);
  });

  it('still accepts the clock alone, as earlier versions did', async () => {
    const clock = manualClock();
    const store = made(clock.now);
    await fill(store, 'k', 3, 1_000);
    clock.advance(999);
    expect(store.sweep()).toBe(0);
    clock.advance(1);
    expect(store.sweep()).toBe(3);
  });

  it.each([-1, 1.5, NaN, 86_400_001, '1000' as never])('refuses sweepIntervalMs %p', (sweepIntervalMs) => {
    expect(() => new MemoryIdempotencyStore({ sweepIntervalMs })).toThrow(InvalidIdempotencyOptionsError);
    expect(() => new MemoryIdempotencyStore({ sweepIntervalMs })).toThrow(
      expect.objectContaining({ code: IdempotencyErrorCode.InvalidOptions }) as never,
    );
  });
});
