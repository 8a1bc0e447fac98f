import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  IdempotencyErrorCode,
  InvalidIdempotencyOptionsError,
  parseDuration,
  type Duration,
} from '../../src/index.js';

describe('parseDuration', () => {
  it.each<[Duration, number]>([
    [0, 0],
    [1, 1],
    [86_400_000, 86_400_000],
    ['0ms', 0],
    ['500ms', 500],
    ['60s', 60_000],
    ['1.5s', 1_500],
    // 1.1 * 1000 is 1100.0000000000002 in binary: still 1100 ms.
    ['1.1s', 1_100],
    ['15m', 900_000],
    ['0.5m', 30_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['30d', 2_592_000_000],
  ])('%j is %d ms', (value, ms) => {
    expect(parseDuration(value, 'ttl')).toBe(ms);
  });

  it.each<[string, unknown]>([
    ['a negative number', -1],
    ['a fraction of a millisecond', 1.5],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['a number past 2^53', 2 ** 53],
    ['an empty string', ''],
    ['a number as a string without a unit', '500'],
    ['a negative string', '-5s'],
    ['a plus sign', '+5s'],
    ['an exponent', '1e3ms'],
    ['a space', '5 s'],
    ['a leading space', ' 5s'],
    ['a trailing newline', '5s\n'],
    ['an upper-case unit', '5S'],
    ['an unknown unit', '5w'],
    ['two units', '1h30m'],
    ['a unit alone', 'ms'],
    ['a dot without digits', '.5s'],
    ['a fraction of a millisecond in a string', '0.5ms'],
    ['NaN with a unit', 'NaNs'],
    ['Infinity with a unit', 'Infinityh'],
    ['a day count past 2^53 ms', '999999999999d'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { ms: 5 }],
    ['a bigint', 5n],
  ])('refuses %s, naming the option', (_, value) => {
    let thrown: unknown;
    try {
      parseDuration(value as Duration, 'replayTtl');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidIdempotencyOptionsError);
    expect((thrown as InvalidIdempotencyOptionsError).code).toBe(IdempotencyErrorCode.InvalidOptions);
    expect((thrown as Error).message).toMatch(/^replayTtl must be /);
  });

  it('reads every whole number of a unit as that many units', () => {
    const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
        fc.nat(10_000),
        (unit, n) => {
          expect(parseDuration(`${n}${unit}` as Duration, 'd')).toBe(n * units[unit]);
        },
      ),
    );
  });
});
