import { describe, expect, it } from '@jest/globals';
import { parseDeadline, remainingMs } from '../../src/deadline.js';

const NOW = 1_700_000_000_000;

describe('parseDeadline', () => {
  it('takes an absolute epoch-ms deadline from the header', () => {
    expect(parseDeadline(String(NOW + 1500), NOW, 5000, 30_000)).toBe(NOW + 1500);
    expect(parseDeadline(` ${NOW + 1500} `, NOW, 5000, 30_000)).toBe(NOW + 1500);
  });

  it('starts a default budget when the header is missing or malformed', () => {
    for (const value of [undefined, null, '', 'soon', '-5', '1.5e12', `${NOW}ms`, [String(NOW + 10)]]) {
      expect(parseDeadline(value, NOW, 5000, 30_000)).toBe(NOW + 5000);
    }
  });

  it('clamps a deadline beyond the maximum budget', () => {
    expect(parseDeadline(String(NOW + 3_600_000), NOW, 5000, 30_000)).toBe(NOW + 30_000);
    expect(parseDeadline(undefined, NOW, 60_000, 30_000)).toBe(NOW + 30_000);
  });

  it('keeps a deadline that has already passed (the next call fails fast)', () => {
    expect(parseDeadline(String(NOW - 10), NOW, 5000, 30_000)).toBe(NOW - 10);
    expect(remainingMs(NOW - 10, NOW)).toBe(0);
    expect(remainingMs(NOW + 10, NOW)).toBe(10);
  });
});
