import { createHash } from 'node:crypto';

/** A value {@link fingerprintOf} accepts: JSON values plus `bigint`, `Date` and `undefined` (dropped in objects). */
export type FingerprintValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | bigint
  | Date
  | readonly FingerprintValue[]
  | { readonly [key: string]: FingerprintValue };

/**
 * SHA-256 (hex) over the canonical JSON of `fields`: object keys sorted at every depth, no whitespace, `undefined`
 * properties dropped, `bigint` as `{"$bigint":"<decimal>"}`, `Date` as `{"$date":"<ISO 8601>"}`. A plain object
 * that looks like one of these tags (its only key is `$bigint` or `$date`, after any number of `$`) gets one more
 * `$` on that key, so `{a: 1n}` and `{a: {$bigint: '1'}}` never share a fingerprint. The same value gives the same
 * fingerprint whatever the key order; different values give different fingerprints.
 *
 * @throws TypeError for values with no deterministic encoding (NaN, Infinity, functions, symbols, Maps, Sets,
 * cycles), so a request can never be fingerprinted ambiguously.
 */
export function fingerprintOf(fields: FingerprintValue): string {
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

/** The canonical JSON text {@link fingerprintOf} hashes. */
export function canonicalJson(value: FingerprintValue): string {
  return encode(value, new Set());
}

// The keys of the tags that encode bigint and Date, with any number of extra `$` (escaped by one more).
const TAG_LIKE = /^\$+(bigint|date)$/;

function encode(value: unknown, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`fingerprintOf: ${value} has no JSON encoding`);
      // -0 and 0 are the same amount; JSON.stringify already prints both as 0.
      return JSON.stringify(value);
    case 'bigint':
      return `{"$bigint":"${value.toString()}"}`;
    case 'undefined':
      // Only reachable inside arrays (object properties are dropped before): encode like JSON does.
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
  if (seen.has(value)) throw new TypeError('fingerprintOf: cyclic value');
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => encode(item, seen)).join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined);
    const escape = keys.length === 1 && TAG_LIKE.test(keys[0]!);
    const parts = keys
      .sort()
      .map((key) => `${JSON.stringify(escape ? `$${key}` : key)}:${encode(record[key], seen)}`);
    out = `{${parts.join(',')}}`;
  }
  seen.delete(value);
  return out;
}
