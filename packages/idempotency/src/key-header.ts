import { IDEMPOTENCY_LIMITS } from './limits.js';
import { idempotencyKeyProblem } from './validation.js';

/**
 * The `Idempotency-Key` header on the wire (draft-ietf-httpapi-idempotency-key-header): one module parses it and
 * formats it, for every hop. The draft makes the field an RFC 8941 sf-string (`"8e03978e-40d5"`); most clients send
 * the bare value (`8e03978e-40d5`), so both are read. Between our services the key always travels in the sf-string
 * form that {@link formatIdempotencyKey} writes, and the decoded key must pass the coordinator's own rules
 * ({@link idempotencyKeyProblem}), so a key the coordinator would refuse never reaches a store.
 *
 * Every step is one pass over the field, with no regular expression that can backtrack: parsing
 * `a<12 000 spaces>b` costs what its length says, not its square (`pnpm bench:keys` prints the ratio).
 */

/** Why a request's `Idempotency-Key` was refused. */
export const IdempotencyKeyRejection = {
  Missing: 'missing',
  Invalid: 'invalid',
} as const;
/** One of {@link IdempotencyKeyRejection}'s values. */
export type IdempotencyKeyRejection = (typeof IdempotencyKeyRejection)[keyof typeof IdempotencyKeyRejection];

/** What {@link parseIdempotencyKeyHeader} found: the decoded key, or why it was refused. */
export type IdempotencyKeyParse =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly rejection: IdempotencyKeyRejection; readonly reason: string };

/** Options of {@link parseIdempotencyKeyHeader}. */
export interface KeyHeaderOptions {
  /**
   * Longest decoded key accepted, in characters. A system whose keys embed ours (a provider that gets
   * `<operation>.<key>`) may accept longer ones; every other rule stays the coordinator's.
   * @default IDEMPOTENCY_LIMITS.key.maxLength (255)
   */
  readonly maxLength?: number;
}

const DQUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Reads the `Idempotency-Key` field: a bare key (visible ASCII except `"` and `\`) or an RFC 8941 sf-string, with
 * optional whitespace around it. Refused: a repeated header (two field lines could be merged differently by two
 * hops), sf parameters, leading or trailing spaces inside the quotes (an unquoted hop would lose them, merging two
 * keys), and whatever the coordinator's key rules refuse.
 *
 * @param values - every field line of the header (Node's `req.headersDistinct['idempotency-key']`), so a repeated
 * header is seen; a single string is one field line.
 */
export function parseIdempotencyKeyHeader(
  values: string | readonly string[] | undefined,
  options: KeyHeaderOptions = {},
): IdempotencyKeyParse {
  const lines = typeof values === 'string' ? [values] : values;
  if (lines === undefined || lines.length === 0) {
    return reject(IdempotencyKeyRejection.Missing, 'the Idempotency-Key header is required');
  }
  if (lines.length > 1) return invalid('the Idempotency-Key header must appear once');
  const field = lines[0] ?? '';
  const maxLength = options.maxLength ?? IDEMPOTENCY_LIMITS.key.maxLength;
  let start = 0;
  let end = field.length;
  while (start < end && isOws(field.charCodeAt(start))) start++;
  while (end > start && isOws(field.charCodeAt(end - 1))) end--;
  if (start === end) return invalid('key is empty');
  // An sf-string can hold at most twice its decoded length (every character escaped) plus its quotes.
  if (end - start > 2 * maxLength + 2) return invalid(`key is longer than ${maxLength} characters`);

  const decoded =
    field.charCodeAt(start) === DQUOTE ? readQuoted(field, start, end) : readBare(field, start, end);
  if (typeof decoded !== 'string') return invalid(decoded.problem);
  return checkKey(decoded, maxLength);
}

/**
 * The wire form of `key`: an RFC 8941 sf-string (`a"b` gives `"a\"b"`), what every hop sends.
 * @throws TypeError for a key outside printable ASCII (no sf-string can carry it; the coordinator's rules and
 * {@link parseIdempotencyKeyHeader} never produce one).
 */
export function formatIdempotencyKey(key: string): string {
  let out = '"';
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < SPACE || code > 0x7e) throw new TypeError('an sf-string holds printable ASCII only');
    out += code === DQUOTE || code === BACKSLASH ? `\\${key[i]}` : key[i];
  }
  return `${out}"`;
}

// RFC 8941 §4.2.5: a DQUOTE, printable ASCII where `\` escapes only `"` and `\`, a DQUOTE; then nothing but
// optional spaces (a `;` would start parameters, which a key has none of).
function readQuoted(field: string, start: number, end: number): string | { problem: string } {
  let value = '';
  for (let i = start + 1; i < end; i++) {
    const code = field.charCodeAt(i);
    if (code === BACKSLASH) {
      const next = field.charCodeAt(i + 1);
      if (i + 1 >= end || (next !== DQUOTE && next !== BACKSLASH)) {
        return { problem: 'a backslash in a quoted key may only escape " or \\' };
      }
      value += field[i + 1];
      i++;
    } else if (code === DQUOTE) {
      return i + 1 === end ? value : trailerProblem(field, i + 1, end);
    } else if (code < SPACE || code > 0x7e) {
      return { problem: 'a quoted key may hold printable ASCII only' };
    } else {
      value += field[i];
    }
  }
  return { problem: 'the quoted key has no closing double quote' };
}

function trailerProblem(field: string, from: number, end: number): { problem: string } {
  let i = from;
  while (i < end && field.charCodeAt(i) === SPACE) i++;
  if (field.charCodeAt(i) === 0x3b) return { problem: 'sf-string parameters are not accepted' };
  return { problem: 'unexpected characters after the quoted key' };
}

function readBare(field: string, start: number, end: number): string | { problem: string } {
  for (let i = start; i < end; i++) {
    const code = field.charCodeAt(i);
    if (code <= SPACE || code > 0x7e || code === DQUOTE || code === BACKSLASH) {
      return {
        problem: 'an unquoted key may hold visible ASCII only; quote it as an RFC 8941 string ("...")',
      };
    }
  }
  return field.slice(start, end);
}

// The decoded key is printable ASCII here, so its length is its number of characters.
function checkKey(key: string, maxLength: number): IdempotencyKeyParse {
  if (key.length > maxLength) return invalid(`key is longer than ${maxLength} characters`);
  const problem =
    key.length <= IDEMPOTENCY_LIMITS.key.maxLength ? idempotencyKeyProblem(key) : longKeyProblem(key);
  if (problem !== undefined) return invalid(problem);
  if (key.charCodeAt(0) === SPACE || key.charCodeAt(key.length - 1) === SPACE) {
    return invalid('key has leading or trailing spaces');
  }
  return { ok: true, key };
}

/**
 * The coordinator's rules for a key longer than it stores (allowed by `maxLength`): they apply character by
 * character, so they are run on each stored-length slice, spaces standing in as dots so that only a key blank as a
 * whole counts as blank.
 */
function longKeyProblem(key: string): string | undefined {
  if (key.trim().length === 0) return 'key is blank';
  const limit = IDEMPOTENCY_LIMITS.key.maxLength;
  for (let i = 0; i < key.length; i += limit) {
    const problem = idempotencyKeyProblem(key.slice(i, i + limit).replaceAll(' ', '.'));
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function isOws(code: number): boolean {
  return code === SPACE || code === TAB;
}

function invalid(reason: string): IdempotencyKeyParse {
  return reject(IdempotencyKeyRejection.Invalid, reason);
}

function reject(rejection: IdempotencyKeyRejection, reason: string): IdempotencyKeyParse {
  return { ok: false, rejection, reason };
}
