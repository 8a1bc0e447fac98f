import { describe, expect, it } from '@jest/globals';
import { SVG_HEIGHT, niceCeiling, soakSvg } from '../../../src/soak/soak-svg.js';
import { joined, sawtooth, series } from './soak-fixtures.js';

/** The values of attribute `name` in every element `tag` of `svg`. */
function attributes(svg: string, tag: string, name: string): string[] {
  return [...svg.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${name}="([^"]*)"`, 'g'))].map((m) => m[1] as string);
}

describe('the plot of one process', () => {
  const orders = joined(
    series('orders-1', sawtooth(20, 50), { startedAt: 1000 }),
    series('orders-1', sawtooth(39, 60), { startedAt: 1210, from: 210, delayMs: [450] }),
  );
  const kills = [
    { process: 'orders-1', service: 'orders', at: 201, backAt: 205 },
    { process: 'payments-2', service: 'payments', at: 401, backAt: 403 },
  ] as const;
  const svg = soakSvg({ series: orders, kills, durationSeconds: 600, sampleSeconds: 10, warmupSeconds: 60 });

  it('is one SVG document of the declared size, its lines inside it', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="760" ')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(`viewBox="0 0 760 ${SVG_HEIGHT}"`);
    const points = attributes(svg, 'polyline', 'points').flatMap((list) => list.split(' '));
    for (const point of points) {
      const [x, y] = point.split(',').map(Number) as [number, number];
      expect({ point, inside: x >= 0 && x <= 760 && y >= 0 && y <= SVG_HEIGHT }).toEqual({
        point,
        inside: true,
      });
    }
  });

  it('draws a line per life in each of the three panels, RSS, heap and event-loop delay', () => {
    expect(attributes(svg, 'polyline', 'stroke')).toEqual([
      '#1f77b4',
      '#1f77b4',
      '#2ca02c',
      '#2ca02c',
      '#9467bd',
      '#9467bd',
    ]);
    expect(attributes(svg, 'polyline', 'points').map((list) => list.split(' ').length)).toEqual([
      20, 39, 20, 39, 20, 39,
    ]);
    expect(svg).toContain('>orders-1: a sample every 10 s, 2 lives</text>');
  });

  it('marks every kill of the run at its instant, the delay limit, and each warm-up', () => {
    // 600 s over the 680 pixels from x = 64: 201 s at 291.8, 401 s at 518.5.
    expect(
      attributes(svg, 'line', 'x1').filter((_, i) => attributes(svg, 'line', 'class')[i] === 'kill'),
    ).toEqual(['291.8', '518.5']);
    expect(svg).toContain('>kill orders-1</text>');
    expect(svg).toContain('>kill payments-2</text>');
    expect(svg).toContain('>limit 100</text>');
    // The delay axis rises to hold the 450 ms sample.
    expect(svg).toContain('>500</text>');
    expect(attributes(svg, 'rect', 'class')).toEqual(['warmup', 'warmup']);
    expect(attributes(svg, 'rect', 'x')).toEqual(['64', '302']);
  });

  it('escapes what it writes as text', () => {
    const odd = soakSvg({
      series: series('a<b&"c"', [1, 2]),
      kills: [],
      durationSeconds: 10,
      sampleSeconds: 10,
      warmupSeconds: 0,
    });

    expect(odd).toContain('>a&lt;b&amp;&quot;c&quot;: a sample every 10 s, 1 life</text>');
  });
});

describe('niceCeiling', () => {
  it('rounds up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 1.1, 2.5, 7, 10, 110, 660].map(niceCeiling)).toEqual([
      1, 0.5, 1, 2, 5, 10, 10, 200, 1000,
    ]);
  });
});
