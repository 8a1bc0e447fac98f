import { hash } from 'node:crypto';

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
  return sha256Hex(canonicalJson(fields));
}

// Node's one-shot crypto.hash costs less than half of a createHash object per call.
const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/** The canonical JSON text {@link fingerprintOf} hashes. */
export function canonicalJson(value: FingerprintValue): string {
  return encode(value, []);
}

// The keys of the tags that encode bigint and Date, with any number of extra `$` (escaped by one more).
const TAG_LIKE = /^\$+(bigint|date)$/;

/**
 * `path` holds the objects being encoded around `value` (a cycle is one of them again). A stack, not a Set: a
 * request is a few levels deep, and a Set per call cost more than the checks it saves. Strings are built in
 * loops rather than filter/sort/map/join chains (half the time per call on the hot path).
 */
function encode(value: unknown, path: object[]): string {
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
  if (path.includes(value)) throw new TypeError('fingerprintOf: cyclic value');
  path.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + encode(value[i], path);
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
      out += (first ? '' : ',') + JSON.stringify(name) + ':' + encode(item, path);
      first = false;
    }
    out += '}';
  }
  path.pop();
  return out;
}
