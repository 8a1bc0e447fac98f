import { describe, expect, it } from '@jest/globals';
import { journalClock, preciseNow } from '../../src/journal-clock.js';

/** A wall clock that runs `rate` times as fast as the monotonic one, read by the same fake. */
function driftingSources(
  rate: number,
  startWall: number,
): { advance(ms: number): void; wall(): number } & {
  monotonic(): number;
} {
  let monotonic = 0;
  return {
    advance: (ms) => {
      monotonic += ms;
    },
    monotonic: () => monotonic,
    wall: () => Math.floor(startWall + monotonic * rate),
  };
}

describe('journalClock', () => {
  it('stays inside the wall clock millisecond when the two clocks drift apart (0.5 %)', () => {
    const sources = driftingSources(1.005, 1_700_000_000_000);
    const now = journalClock(sources);
    const readings: number[] = [];
    for (let i = 0; i < 60_000; i += 1) {
      sources.advance(0.37);
      readings.push(now());
      const wall = sources.wall();
      if (!(readings.at(-1)! >= wall && readings.at(-1)! < wall + 1)) {
        throw new Error(`reading ${readings.at(-1)} left the wall clock's millisecond ${wall} at step ${i}`);
      }
    }
    // timeOrigin + now() would be 111 ms behind after these 22.2 s; the clock is within the millisecond.
    expect(sources.wall() - readings.at(-1)!).toBeLessThanOrEqual(0);
    expect(readings.every((reading, i) => i === 0 || reading >= readings[i - 1]!)).toBe(true);
  });

  it('keeps sub-millisecond order within one millisecond', () => {
    const sources = driftingSources(1, 1_000);
    const now = journalClock(sources);
    sources.advance(0.1);
    const first = now();
    sources.advance(0.2);
    const second = now();
    expect(second - first).toBeCloseTo(0.2, 6);
    expect(Math.floor(second)).toBe(1_000);
  });

  it('never runs backwards when the monotonic clock runs ahead and the offset is taken again', () => {
    const sources = driftingSources(0.995, 5_000);
    const now = journalClock(sources);
    let previous = -Infinity;
    for (let i = 0; i < 10_000; i += 1) {
      sources.advance(0.9);
      const reading = now();
      expect(reading).toBeGreaterThanOrEqual(previous);
      expect(reading - sources.wall()).toBeLessThan(1);
      previous = reading;
    }
  });

  it('the process clock reads the wall clock to within a millisecond', () => {
    const wall = Date.now();
    const reading = preciseNow();
    expect(reading).toBeGreaterThanOrEqual(wall);
    expect(reading).toBeLessThan(Date.now() + 1);
  });
});
