import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalJson, fingerprintOf, type FingerprintValue } from '../../src/index.js';

/** Rebuilds every object of `value` with its keys in another order. */
function shuffleKeys(value: unknown, rotate: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, rotate));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const keys = Object.keys(value);
  const n = keys.length === 0 ? 0 : rotate % keys.length;
  const order = [...keys.slice(n), ...keys.slice(0, n)].reverse();
  return Object.fromEntries(
    order.map((k) => [k, shuffleKeys((value as Record<string, unknown>)[k], rotate + 1)]),
  );
}

const jsonValue = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<FingerprintValue>;

describe('fingerprintOf', () => {
  it('is invariant under key order at every depth', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), (value, rotate) => {
        expect(fingerprintOf(shuffleKeys(value, rotate) as FingerprintValue)).toBe(fingerprintOf(value));
      }),
    );
  });

  it('distinguishes different values', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
      }),
    );
  });

  it('agrees with JSON.parse: canonical JSON is valid, whitespace-free JSON of the same value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('is the SHA-256 (hex) of the canonical JSON, whichever hash API computes it', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(fingerprintOf(value)).toBe(createHash('sha256').update(canonicalJson(value)).digest('hex'));
      }),
    );
  });

  it('encodes a sparse array like JSON does (holes as null)', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalJson([1, , 3] as FingerprintValue)).toBe('[1,null,3]');
  });

  it('is SHA-256 hex over sorted, compact JSON', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null } })).toBe('{"a":{"c":null,"d":[1,"x"]},"b":1}');
    expect(fingerprintOf({ amount: 1000, currency: 'EUR' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('drops undefined properties, like JSON', () => {
    expect(fingerprintOf({ a: 1, b: undefined })).toBe(fingerprintOf({ a: 1 }));
  });

  it('encodes bigint and Date deterministically and apart from strings and numbers', () => {
    expect(canonicalJson({ n: 10n, d: new Date('2026-01-02T03:04:05.678Z') })).toBe(
      '{"d":{"$date":"2026-01-02T03:04:05.678Z"},"n":{"$bigint":"10"}}',
    );
    expect(fingerprintOf({ n: 10n })).not.toBe(fingerprintOf({ n: 10 }));
    expect(fingerprintOf({ n: 10n })).not.toBe(fingerprintOf({ n: '10' }));
  });

  it.each([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['a function', () => 1],
    ['a Map', new Map()],
    ['an invalid Date', new Date('nope')],
  ])('refuses %s instead of encoding it ambiguously', (_, value) => {
    expect(() => fingerprintOf({ value } as never)).toThrow(TypeError);
  });

  it('refuses cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => fingerprintOf(cyclic as never)).toThrow('cyclic');
  });
});

describe('fingerprintOf keeps tagged values apart from plain objects that look like tags', () => {
  it.each([
    [{ a: 1n }, { a: { $bigint: '1' } }],
    [{ a: new Date('2026-01-02T03:04:05.678Z') }, { a: { $date: '2026-01-02T03:04:05.678Z' } }],
    [{ a: { $bigint: '1' } }, { a: { $$bigint: '1' } }],
    [[10n], [{ $bigint: '10' }]],
  ])('%j and %j differ', (a, b) => {
    expect(fingerprintOf(a as FingerprintValue)).not.toBe(fingerprintOf(b as FingerprintValue));
  });

  it('leaves other $-keys as they are', () => {
    expect(canonicalJson({ $ref: 'x', $bigint: '1' })).toBe('{"$bigint":"1","$ref":"x"}');
  });
});
