/**
 * The clock of the request journals (`GET /__requests`): the scenario runner orders what separate processes saw
 * by these times, so a reading must compare across the processes of one host.
 */

/** The two clocks a journal clock reads; injectable so its behaviour can be tested. */
export interface ClockSources {
  /** A monotonic reading in ms (`performance.now()`). */
  readonly monotonic: () => number;
  /** Epoch ms (`Date.now()`). */
  readonly wall: () => number;
}

const SYSTEM: ClockSources = { monotonic: () => performance.now(), wall: () => Date.now() };

/**
 * A clock of epoch milliseconds with sub-millisecond precision that never runs backwards and stays inside the wall
 * clock's current millisecond. `performance.timeOrigin + performance.now()` is not enough: the monotonic and the
 * wall clock drift apart (0.5 % was measured on this project's CI machines, where the wall clock is slewed), so
 * a process started a minute after another reads hundreds of ms apart from it. The monotonic clock gives the
 * fraction; whenever it leaves the wall clock's millisecond, the offset is taken again.
 */
export function journalClock(sources: ClockSources = SYSTEM): () => number {
  let offset = sources.wall() - sources.monotonic();
  let last = -Infinity;
  return () => {
    const monotonic = sources.monotonic();
    const wall = sources.wall();
    let now = monotonic + offset;
    if (now < wall || now >= wall + 1) {
      offset = wall - monotonic;
      now = wall;
    }
    // A re-taken offset may fall behind the last reading by less than a millisecond: hold it there.
    last = Math.max(last, now);
    return last;
  };
}

/** Epoch ms (fractional), comparable across the processes of one host to within a millisecond. */
export const preciseNow: () => number = journalClock();
