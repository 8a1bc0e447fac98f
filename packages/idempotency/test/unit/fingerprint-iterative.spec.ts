import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalJson, fingerprintOf, type FingerprintValue } from '../../src/index.js';

// The recursive encoder as it shipped before the explicit stack, kept verbatim as the oracle: every stored
// fingerprint is a hash of its output, so the new encoder must write the same bytes (or throw the same TypeError)
// for every value.
const TAG_LIKE = /^\$+(bigint|date)$/;

function oracle(value: unknown, path: object[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`fingerprintOf: ${value} has no JSON encoding`);
      return JSON.stringify(value);
    case 'bigint':
      return `{"$bigint":"${value.toString()}"}`;
    case 'undefined':
      return 'null';
    case 'object':
      break;
    default:
      throw new TypeError(`fingerprintOf: a ${typeof value} has no deterministic encoding`);
  }
  if (value === null) return 'null';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('fingerprintOf: invalid Date');
    return `{"$date":"${value.toISOString()}"}`;
  }
  if (value instanceof Map || value instanceof Set) {
    throw new TypeError(
      'fingerprintOf: Map and Set have no canonical encoding; pass a plain object or array',
    );
  }
  if (path.includes(value)) throw new TypeError('fingerprintOf: cyclic value');
  path.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + oracle(value[i], path);
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let defined = 0;
    for (const key of keys) if (record[key] !== undefined) defined++;
    out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      const name = defined === 1 && TAG_LIKE.test(key) ? `$${key}` : key;
      out += (first ? '' : ',') + JSON.stringify(name) + ':' + oracle(item, path);
      first = false;
    }
    out += '}';
  }
  path.pop();
  return out;
}

/** What an encoder gives for `value`: its text, or the TypeError it throws (class and message). */
function outcome(encode: (value: unknown) => string, value: unknown): string {
  try {
    return `ok ${encode(value)}`;
  } catch (error) {
    return `${(error as Error).constructor.name} ${(error as Error).message}`;
  }
}

const current = (value: unknown): string => canonicalJson(value as FingerprintValue);
const recursive = (value: unknown): string => oracle(value, []);

// Keys that hit the tag escaping (alone, with more `$`, or beside others), JSON's special characters, and any text.
const keyArb = fc.oneof(
  fc.constantFrom(
    '$bigint',
    '$$bigint',
    '$date',
    '$$$date',
    'bigint',
    '$',
    '$ref',
    '',
    'a',
    'b',
    '"\\\n',
    '__x',
  ),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);

const leafArb: fc.Arbitrary<unknown> = fc
  .oneof(
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 4 }), weight: 1 },
    // Doubles include NaN, ±Infinity and -0: refused or encoded as today.
    { arbitrary: fc.double(), weight: 3 },
    { arbitrary: fc.integer(), weight: 2 },
    { arbitrary: fc.boolean(), weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: fc.bigInt(), weight: 2 },
    // Valid and invalid Dates.
    { arbitrary: fc.date({ noInvalidDate: false }), weight: 2 },
    // What has no encoding, rarely, so that most values encode.
    {
      arbitrary: fc.constantFrom<() => unknown>(
        () => () => 1,
        () => Symbol('s'),
        () => new Map([[1, 2]]),
        () => new Set([1]),
      ),
      weight: 1,
    },
  )
  .map((leaf) => (typeof leaf === 'function' ? (leaf as () => unknown)() : leaf));

const { value: valueArb } = fc.letrec<{ value: unknown; array: unknown; object: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafArb, tie('array'), tie('object')),
  // Dense arrays (with undefined elements) and sparse ones (holes read as undefined).
  array: fc.oneof(fc.array(tie('value'), { maxLength: 5 }), fc.sparseArray(tie('value'), { maxLength: 5 })),
  object: fc.oneof(
    fc.dictionary(keyArb, tie('value'), { maxKeys: 5 }),
    // One tag-like key, alone or beside undefined properties (still the only defined one).
    fc
      .tuple(
        fc.constantFrom('$bigint', '$$bigint', '$date', '$$date'),
        tie('value'),
        fc.dictionary(keyArb, fc.constant(undefined), { maxKeys: 2 }),
      )
      .map(([key, item, undefinedOnes]) => ({ ...undefinedOnes, [key]: item })),
  ),
}));

/** `value` with one of its containers pointing back at an ancestor (or at itself), when it has containers. */
function withCycle(value: unknown, pick: number): unknown {
  const containers: object[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || node instanceof Date) return;
    if (node instanceof Map || node instanceof Set) return;
    containers.push(node);
    for (const child of Object.values(node)) walk(child);
  };
  walk(value);
  if (containers.length === 0) return value;
  const target = containers[pick % containers.length]!;
  const ancestor = containers[Math.floor(pick / 7) % (containers.indexOf(target) + 1)]!;
  if (Array.isArray(target)) target.push(ancestor);
  else (target as Record<string, unknown>)['~cycle'] = ancestor;
  return value;
}

describe('canonicalJson without recursion', () => {
  it('writes byte for byte what the recursive encoder wrote, or throws the same TypeError', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(outcome(current, value)).toBe(outcome(recursive, value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees on values that hold cycles', () => {
    fc.assert(
      fc.property(valueArb, fc.nat(), (value, pick) => {
        const cyclic = withCycle(value, pick);
        expect(outcome(current, cyclic)).toBe(outcome(recursive, cyclic));
      }),
      { numRuns: 1_000 },
    );
  });

  it('agrees on hand-picked edge cases', () => {
    const shared = { x: 1 };
    const cases: unknown[] = [
      { a: 1n, b: new Date(0), c: [undefined, 1n, new Date(1)] },
      { $bigint: '1' },
      { $$date: 'x', other: undefined },
      { $bigint: '1', $date: '2' },
      [[[[]]], {}, [{}], { a: [] }],
      // The same object twice, side by side, is no cycle.
      [shared, shared, { s: shared }],
      -0,
      'a\u2028b"\\',
      [NaN],
      { a: { b: { c: Infinity } } },
    ];
    for (const value of cases) expect(outcome(current, value)).toBe(outcome(recursive, value));
  });

  it('fingerprints a JSON body nested 100 000 deep (the recursive encoder overflowed the stack)', () => {
    const depth = 100_000;
    const text = '['.repeat(depth) + ']'.repeat(depth);
    const body = JSON.parse(text) as FingerprintValue;
    expect(() => recursive(body)).toThrow(RangeError);
    expect(canonicalJson(body)).toBe(text);
    expect(fingerprintOf(body)).toMatch(/^[0-9a-f]{64}$/);

    let object: Record<string, unknown> = { leaf: 1n };
    for (let i = 0; i < depth; i++) object = { [`k${i % 3}`]: object, n: i % 2 === 0 ? undefined : i };
    const encoded = canonicalJson(object as FingerprintValue);
    expect(encoded.startsWith('{"k0":{"k2":{"k1":')).toBe(true);
    expect(encoded).toContain('{"leaf":{"$bigint":"1"}}');
  });

  it('finds a cycle deep down (past the depth where the path becomes a Set) and one near the root', () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let i = 0; i < 1_000; i++) node = node['next'] = { i };
    node['back'] = root;
    expect(() => canonicalJson(root as never)).toThrow('fingerprintOf: cyclic value');
    // A back-reference to a container that was on the path before but no longer is: no cycle.
    const left = { deep: {} as Record<string, unknown> };
    let inner = left.deep;
    for (let i = 0; i < 40; i++) inner = inner['d'] = {};
    expect(canonicalJson([left, { again: left }] as never)).toBe(recursive([left, { again: left }]));
  });
});
