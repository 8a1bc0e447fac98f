import { describe, expect, it } from '@jest/globals';
import { formatSeries, formatVerdict } from '../../../src/soak/soak-table.js';
import { judgeSoak } from '../../../src/soak/soak-verdict.js';
import { joined, sawtooth, series } from './soak-fixtures.js';

describe('the series table', () => {
  it('prints a row per sample tick and a column per process, marking restarts, gaps and kills', () => {
    const gateway = series('gateway', [40, 52, 47], { delayMs: [80, 14, 15], rssMb: [150, 151.4, 152.6] });
    const orders = joined(
      series('orders-1', [60, 71], { startedAt: 1000 }),
      // Killed at 13.2 s: no sample at 20 s (it was down), the next life from 30 s.
      series('orders-1', [58], { startedAt: 1025, from: 30, delayMs: [230] }),
    );
    const kills = [{ process: 'orders-1', service: 'orders', at: 13.2, backAt: 26.9 }] as const;

    const table = formatSeries({ series: [gateway, orders], kills, sampleSeconds: 10 });

    expect(table.split('\n')).toEqual([
      'RSS (MB); * the first sample of a life (a start), - none',
      ' t (s)   gateway  orders-1',
      '     0      150*      150*',
      '    10      151       150 ',
      '    20      153         -    orders-1 killed at 13.2 s, back at 26.9 s',
      '    30        -       150*',
      '',
      'heap used (MB); * the first sample of a life (a start), - none',
      ' t (s)   gateway  orders-1',
      '     0       40*       60*',
      '    10       52        71 ',
      '    20       47         -    orders-1 killed at 13.2 s, back at 26.9 s',
      '    30        -        58*',
      '',
      'event-loop delay p99 (ms); * the first sample of a life (a start), - none',
      ' t (s)   gateway  orders-1',
      '     0       80*       12*',
      '    10       14        12 ',
      '    20       15         -    orders-1 killed at 13.2 s, back at 26.9 s',
      '    30        -       230*',
    ]);
  });
});

describe('the verdict table', () => {
  it('prints each life judged with its lows and growth, each process with its worst delay, and the problems', () => {
    const verdict = judgeSoak(
      [
        series('gateway', sawtooth(60, 50)),
        series('orders-1', sawtooth(60, 50, { drift: 0.5 }), { delayMs: [300, 12, 140] }),
        series('provider', sawtooth(10, 40)),
      ],
      [],
      { sampleSeconds: 10, warmupSeconds: 60 },
    );

    expect(formatVerdict(verdict).split('\n')).toEqual([
      'heap: lowest of the first third after warm-up -> lowest of the last third (limit +10.0 %); 2 of 3 lives judged',
      'process                    judged     first      last   growth   verdict',
      'gateway (life 1)         60-590 s   50.0 MB   50.0 MB   +0.0 %   ok',
      'orders-1 (life 1)        60-590 s   53.0 MB   71.0 MB  +34.0 %   grew',
      'provider (life 1)         60-90 s         -         -        -   short',
      '',
      'event-loop delay: worst p99 outside the kills (limit 100 ms)',
      'process                 worst p99        at  left out   verdict',
      'gateway                   12.0 ms      20 s         2   ok',
      'orders-1                 140.0 ms      20 s         2   too slow',
      'provider                  12.0 ms      20 s         2   ok',
      '',
      'problems:',
      '  orders-1 (life 1): heap grew +34.0 % from 60 s to 590 s (limit +10.0 %)',
      '  orders-1: event-loop delay p99 140 ms at 20 s (limit 100 ms outside the kills)',
    ]);
  });
});
