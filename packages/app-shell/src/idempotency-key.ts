import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { idempotencyKeyProblem } from '@retry-safe/idempotency';
import type { Request } from 'express';
import { IdempotencyKeyInvalidError, IdempotencyKeyMissingError } from './errors.js';

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

// A bare (unquoted) key: visible ASCII except the characters that only make sense inside an sf-string.
const BARE_KEY = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Reads the `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): an RFC 8941 sf-string such as
 * `"8e03978e-40d5"`, or, as most clients send it, the bare value `8e03978e-40d5`. The decoded key must then pass
 * the coordinator's own rules ({@link idempotencyKeyProblem}: 1-255 characters, not blank, no `:` or control
 * characters), so a key the coordinator would refuse never reaches Redis. Two more rules of ours: no leading or
 * trailing spaces (an unquoted hop would lose them, merging two keys), and no sf parameters.
 *
 * @param values every field line of the header (Node's `req.headersDistinct`), so a repeated header is seen.
 */
export function parseIdempotencyKeyHeader(values: readonly string[] | undefined): IdempotencyKeyParse {
  if (values === undefined || values.length === 0) {
    return reject(IdempotencyKeyRejection.Missing, 'the Idempotency-Key header is required');
  }
  if (values.length > 1) return invalid('the Idempotency-Key header must appear once');
  const field = trimOws(values[0] ?? '');
  if (field.length === 0) return invalid('key is empty');

  let key: string;
  if (field.startsWith('"')) {
    const parsed = parseSfString(field);
    if (typeof parsed === 'string') return invalid(parsed);
    const rest = parsed.rest.replace(/^ +/, '');
    if (rest.startsWith(';')) return invalid('sf-string parameters are not accepted');
    if (rest.length > 0) return invalid('unexpected characters after the quoted key');
    key = parsed.value;
  } else {
    if (!BARE_KEY.test(field)) {
      return invalid('an unquoted key may hold visible ASCII only; quote it as an RFC 8941 string ("...")');
    }
    key = field;
  }

  const problem = idempotencyKeyProblem(key);
  if (problem !== undefined) return invalid(problem);
  if (key !== key.trim()) return invalid('key has leading or trailing spaces');
  return { ok: true, key };
}

/** The RFC 8941 sf-string form of `value` (printable ASCII only), e.g. `a"b` -> `"a\"b"`. */
export function serializeSfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new TypeError('an sf-string holds printable ASCII only');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * RFC 8941 §4.2.5: a DQUOTE, then printable ASCII where `\` escapes only `"` and `\`, then a DQUOTE.
 * Returns the decoded value and what follows it, or why the input is not an sf-string.
 */
export function parseSfString(input: string): { value: string; rest: string } | string {
  if (!input.startsWith('"')) return 'an sf-string starts with a double quote';
  let value = '';
  for (let i = 1; i < input.length; i++) {
    const char = input[i] as string;
    const code = char.charCodeAt(0);
    if (char === '\\') {
      const next = input[i + 1];
      if (next !== '"' && next !== '\\') return 'a backslash in a quoted key may only escape " or \\';
      value += next;
      i++;
    } else if (char === '"') {
      return { value, rest: input.slice(i + 1) };
    } else if (code < 0x20 || code > 0x7e) {
      return 'a quoted key may hold printable ASCII only';
    } else {
      value += char;
    }
  }
  return 'the quoted key has no closing double quote';
}

function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

function invalid(reason: string): IdempotencyKeyParse {
  return reject(IdempotencyKeyRejection.Invalid, reason);
}

function reject(rejection: IdempotencyKeyRejection, reason: string): IdempotencyKeyParse {
  return { ok: false, rejection, reason };
}

/** Options of {@link createIdempotencyKeyDecorator}. */
export interface IdempotencyKeyDecoratorOptions {
  /** The detail of the 400 `idempotency_key_missing`. @default `'The Idempotency-Key header is required'` */
  readonly missingMessage?: string;
}

/**
 * A parameter decorator giving the request's `Idempotency-Key`, decoded and validated (see
 * {@link parseIdempotencyKeyHeader}); 400 `idempotency_key_missing` or `idempotency_key_invalid` otherwise. Reads
 * every field line of the header, so a repeated header is refused rather than merged.
 */
export function createIdempotencyKeyDecorator(
  options: IdempotencyKeyDecoratorOptions = {},
): () => ParameterDecorator {
  return createParamDecorator((_data: unknown, context: ExecutionContext): string => {
    const req = context.switchToHttp().getRequest<Request>();
    const parsed = parseIdempotencyKeyHeader(req.headersDistinct['idempotency-key']);
    if (parsed.ok) return parsed.key;
    if (parsed.rejection === IdempotencyKeyRejection.Missing) {
      throw new IdempotencyKeyMissingError(options.missingMessage);
    }
    throw new IdempotencyKeyInvalidError(parsed.reason);
  });
}

/** {@link createIdempotencyKeyDecorator} with the default messages: `@IdempotencyKey() key: string`. */
export const IdempotencyKey = createIdempotencyKeyDecorator();
