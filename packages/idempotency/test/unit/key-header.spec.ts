import { describe, expect, it } from '@jest/globals';
import { formatIdempotencyKey, parseIdempotencyKeyHeader } from '../../src/key-header.js';

const ok = (key: string) => ({ ok: true, key });
const invalid = (reason: RegExp) => ({
  ok: false,
  rejection: 'invalid',
  reason: expect.stringMatching(reason),
});

describe('parseIdempotencyKeyHeader', () => {
  it.each([
    ['a bare key', ['8e03978e-40d5-43e8-bc93-6894a57f9324'], '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['a quoted key', ['"abc"'], 'abc'],
    ['a quoted key with spaces inside', ['"pay order 42"'], 'pay order 42'],
    ['escaped quote and backslash', ['"a\\"b\\\\c"'], 'a"b\\c'],
    ['optional whitespace around the field', [' \t"abc" '], 'abc'],
    ['a bare key with sf-looking punctuation', ['a=b;c,d'], 'a=b;c,d'],
    ['255 characters', ['k'.repeat(255)], 'k'.repeat(255)],
    ['255 characters, quoted', [`"${'k'.repeat(255)}"`], 'k'.repeat(255)],
  ])('accepts %s', (_label, values, key) => {
    expect(parseIdempotencyKeyHeader(values)).toEqual(ok(key));
  });

  it('refuses a missing header as missing', () => {
    expect(parseIdempotencyKeyHeader(undefined)).toEqual({
      ok: false,
      rejection: 'missing',
      reason: expect.stringMatching(/required/),
    });
    expect(parseIdempotencyKeyHeader([])).toMatchObject({ ok: false, rejection: 'missing' });
  });

  it.each([
    ['a repeated header', ['a', 'a'], /once/],
    ['an empty value', [''], /empty/],
    ['an empty quoted string', ['""'], /empty/],
    ['a blank quoted string', ['"   "'], /blank/],
    ['a colon', ['order:42'], /':'/],
    ['a quoted colon', ['"order:42"'], /':'/],
    ['256 characters', ['k'.repeat(256)], /255/],
    ['256 characters, quoted', [`"${'k'.repeat(256)}"`], /255/],
    ['an unquoted space', ['a b'], /visible ASCII/],
    ['unquoted non-ASCII', ['clé'], /visible ASCII/],
    ['an unquoted backslash', ['a\\b'], /visible ASCII/],
    ['a bare value starting a quote but not closing it', ['"abc'], /closing/],
    ['an escape of another character', ['"a\\nb"'], /backslash/],
    ['a control character in quotes', ['"a\u0001b"'], /printable ASCII/],
    ['non-ASCII in quotes', ['"clé"'], /printable ASCII/],
    ['sf parameters', ['"abc";v=1'], /parameters/],
    ['text after the string', ['"abc" x'], /after/],
    ['an sf-list', ['"a", "b"'], /after/],
    ['leading spaces inside the quotes', ['" abc"'], /leading or trailing/],
    ['trailing spaces inside the quotes', ['"abc "'], /leading or trailing/],
  ])('refuses %s as invalid', (_label, values, reason) => {
    expect(parseIdempotencyKeyHeader(values)).toEqual(invalid(reason));
  });

  it('reads a single field line given as a string', () => {
    expect(parseIdempotencyKeyHeader(' "abc" ')).toEqual(ok('abc'));
  });

  it('refuses a key of spaces between two characters without scanning it twice', () => {
    expect(parseIdempotencyKeyHeader([`a${' '.repeat(12_000)}b`])).toEqual(invalid(/longer than 255/));
    expect(parseIdempotencyKeyHeader([`a${' '.repeat(400)}b`])).toEqual(invalid(/visible ASCII/));
  });

  it('accepts longer keys up to maxLength, with every other rule of the coordinator', () => {
    const long = `payment.charge.${'a'.repeat(32)}.${'k'.repeat(255)}`;
    expect(parseIdempotencyKeyHeader([long])).toEqual(invalid(/255/));
    expect(parseIdempotencyKeyHeader([long], { maxLength: 512 })).toEqual(ok(long));
    expect(parseIdempotencyKeyHeader(['k'.repeat(513)], { maxLength: 512 })).toEqual(invalid(/512/));
    expect(parseIdempotencyKeyHeader([`${'k'.repeat(300)}:x`], { maxLength: 512 })).toEqual(invalid(/':'/));
    expect(parseIdempotencyKeyHeader([`"${' '.repeat(300)}"`], { maxLength: 512 })).toEqual(invalid(/blank/));
    expect(parseIdempotencyKeyHeader([`"${'k'.repeat(300)} "`], { maxLength: 512 })).toEqual(
      invalid(/leading or trailing/),
    );
  });
});

describe('formatIdempotencyKey (the wire form between services)', () => {
  it.each(['abc', 'a"b', 'a\\b', 'with space'])('round-trips %j', (value) => {
    expect(parseIdempotencyKeyHeader([formatIdempotencyKey(value)])).toEqual(ok(value));
  });

  it('serializes by escaping only " and \\', () => {
    expect(formatIdempotencyKey('a"b\\c d')).toBe('"a\\"b\\\\c d"');
    expect(formatIdempotencyKey('')).toBe('""');
  });

  it('refuses to serialize what an sf-string cannot hold', () => {
    expect(() => formatIdempotencyKey('tab\there')).toThrow(TypeError);
    expect(() => formatIdempotencyKey('é')).toThrow(TypeError);
  });
});
