import { describe, expect, it } from '@jest/globals';
import { livesOf } from '../../../src/soak/soak-series.js';
import { HeapStatus, judgeSoak } from '../../../src/soak/soak-verdict.js';
import { joined, sawtooth, series } from './soak-fixtures.js';

const SETTINGS = { sampleSeconds: 10, warmupSeconds: 60 };

describe('the heap verdict: the lowest heap of the first third after warm-up against the last third', () => {
  it('passes a sawtooth whose lows stay put, however high its peaks', () => {
    const verdict = judgeSoak([series('gateway', sawtooth(60, 50, { step: 30 }))], [], SETTINGS);

    expect(verdict.heap).toEqual([
      {
        process: 'gateway',
        life: 1,
        from: 60,
        to: 590,
        early: 50e6,
        late: 50e6,
        growth: 0,
        status: HeapStatus.Ok,
      },
    ]);
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
  });

  it('fails a heap whose lows rise by more than 10 %, naming the process, the growth and the span', () => {
    // Lows 53 MB at 60 s (the first judged sample) and 71 MB at 420 s (the first of the last third).
    const verdict = judgeSoak([series('orders-1', sawtooth(60, 50, { drift: 0.5 }))], [], SETTINGS);

    expect(verdict.heap[0]).toMatchObject({ early: 53e6, late: 71e6, status: HeapStatus.Grew });
    expect(verdict.problems).toEqual([
      'orders-1 (life 1): heap grew +34.0 % from 60 s to 590 s (limit +10.0 %)',
    ]);
    expect(verdict.ok).toBe(false);
  });

  it('passes exactly +10 % and fails just past it', () => {
    const lows = (late: number): number[] => [
      ...Array(6).fill(200),
      ...Array(18).fill(100),
      ...Array(18).fill(105),
      ...Array(18).fill(late),
    ];

    expect(judgeSoak([series('payments-1', lows(110))], [], SETTINGS).heap[0]?.status).toBe(HeapStatus.Ok);
    expect(judgeSoak([series('payments-1', lows(110.2))], [], SETTINGS).heap[0]?.status).toBe(
      HeapStatus.Grew,
    );
  });

  it('does not judge a life whose last third saw no full GC: its lowest still holds old garbage', () => {
    // One full GC, between the samples at 90 s and 100 s (in the first third): none in the last.
    const rising = series('worker', sawtooth(60, 50, { drift: 1 }));
    const noLateGc = {
      ...rising,
      samples: rising.samples.map((s, i) => ({ ...s, majorGcs: i < 10 ? 1 : 2 })),
    };

    const verdict = judgeSoak([noLateGc], [], SETTINGS);

    expect(verdict.heap[0]).toMatchObject({ status: HeapStatus.NoFullGc, early: 56e6, late: 92e6 });
    expect(verdict.problems).toEqual([]);
  });

  it('does not judge a life with fewer than 9 samples after its warm-up', () => {
    const verdict = judgeSoak([series('gateway', sawtooth(14, 50, { drift: 10 }))], [], SETTINGS);

    expect(verdict.heap[0]).toMatchObject({
      from: 60,
      to: 130,
      early: undefined,
      late: undefined,
      growth: undefined,
      status: HeapStatus.Short,
    });
    expect(verdict.ok).toBe(true);
  });

  it("reports provider-sim's growth without judging it (its ledgers are kept in memory by design)", () => {
    const verdict = judgeSoak([series('provider', sawtooth(60, 50, { drift: 1 }))], [], SETTINGS);

    expect(verdict.heap[0]).toMatchObject({ status: HeapStatus.NotJudged, early: 56e6, late: 92e6 });
    expect(verdict.ok).toBe(true);
  });

  it('judges each life of a killed process on its own, each after a warm-up of its own', () => {
    const before = series('orders-1', sawtooth(20, 50, { drift: 2 }), { startedAt: 1000 });
    const after = series('orders-1', sawtooth(40, 60), { startedAt: 1200, from: 200 });

    const verdict = judgeSoak([joined(before, after)], [], SETTINGS);

    expect(livesOf(joined(before, after).samples).map((life) => life.length)).toEqual([20, 40]);
    expect(verdict.heap.map(({ life, from, to, status }) => ({ life, from, to, status }))).toEqual([
      { life: 1, from: 60, to: 190, status: HeapStatus.Grew },
      { life: 2, from: 260, to: 590, status: HeapStatus.Ok },
    ]);
    // Life 1: 14 samples judged (60 s to 190 s), thirds of 4: lows 62 MB (at 60 s) and 86 MB (at 180 s).
    expect(verdict.heap[0]).toMatchObject({ early: 62e6, late: 86e6 });
  });
});

describe('the event-loop verdict: the worst p99 outside the kills', () => {
  const delays = (spikes: Record<number, number>): number[] =>
    Array.from({ length: 30 }, (_, i) => spikes[i * 10] ?? 12);
  const kill = { process: 'payments-2', service: 'payments', at: 95, backAt: 98 } as const;

  it('leaves out the samples whose period overlaps a kill, up to one period after the process is back', () => {
    // The window is 95 s to 108 s: the samples at 100 s (90-100) and 110 s (100-110) overlap it, 120 s does not;
    // the samples at 0 s and 10 s are the life's first two.
    const inside = series('payments-1', sawtooth(30, 50), {
      delayMs: delays({ 100: 300, 110: 250, 120: 40 }),
    });

    const verdict = judgeSoak([inside], [kill], SETTINGS);

    expect(verdict.delay).toEqual([
      { process: 'payments-1', worstMs: 40, worstAt: 120, excluded: 4, ok: true },
    ]);
  });

  it('fails a p99 over 100 ms outside the kills, naming the process, the delay and when', () => {
    const outside = series('payments-1', sawtooth(30, 50), { delayMs: delays({ 100: 300, 120: 180 }) });

    const verdict = judgeSoak([outside], [kill], SETTINGS);

    expect(verdict.delay[0]).toEqual({
      process: 'payments-1',
      worstMs: 180,
      worstAt: 120,
      excluded: 4,
      ok: false,
    });
    expect(verdict.problems).toEqual([
      'payments-1: event-loop delay p99 180 ms at 120 s (limit 100 ms outside the kills)',
    ]);
    expect(verdict.ok).toBe(false);
  });

  it("leaves out each life's first two samples (the boot, the first requests), and passes exactly 100 ms", () => {
    const before = series('orders-1', sawtooth(10, 50), { delayMs: [400, 130, 100], startedAt: 1000 });
    const after = series('orders-1', sawtooth(10, 50), {
      delayMs: [900, 300, 12],
      startedAt: 1100,
      from: 100,
    });

    const verdict = judgeSoak([joined(before, after)], [], SETTINGS);

    expect(verdict.delay).toEqual([
      { process: 'orders-1', worstMs: 100, worstAt: 20, excluded: 4, ok: true },
    ]);
  });

  it('judges the third sample of a life', () => {
    const third = series('orders-1', sawtooth(10, 50), { delayMs: [400, 130, 101] });

    expect(judgeSoak([third], [], SETTINGS).delay[0]).toEqual({
      process: 'orders-1',
      worstMs: 101,
      worstAt: 20,
      excluded: 2,
      ok: false,
    });
  });
});
