/**
 * Turns an action's result into the string stored in the record, and back. `decode` must throw on input it does
 * not accept: the coordinator then reports {@link IdempotencyCorruptRecordError} instead of running the action
 * again.
 */
export interface Codec<T> {
  encode(value: T): string;
  decode(stored: string): T;
}

/** Any schema with a zod-style `parse` that throws on invalid input (zod, valibot adapters, ...). */
export interface ParsingSchema<T> {
  parse(input: unknown): T;
}

/** JSON codec. `T` must survive `JSON.stringify`/`JSON.parse` (no Dates, Maps or class instances). */
export function jsonCodec<T>(): Codec<T> {
  return {
    encode(value) {
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError('jsonCodec: the value has no JSON encoding');
      return text;
    },
    decode(stored) {
      return JSON.parse(stored) as T;
    },
  };
}

/**
 * JSON codec that validates on decode with `schema.parse`, so a record written by an older or foreign format
 * fails loudly as corrupt instead of flowing on as the wrong shape.
 */
export function schemaCodec<T>(schema: ParsingSchema<T>): Codec<T> {
  const json = jsonCodec<unknown>();
  return {
    encode: (value) => json.encode(value),
    decode: (stored) => schema.parse(json.decode(stored)),
  };
}

/** Codec for actions whose result is not needed (only that they ran once). */
export const voidCodec: Codec<void> = {
  encode: () => '',
  decode: (stored) => {
    if (stored !== '') throw new TypeError('voidCodec: expected an empty record');
  },
};

// A lone surrogate has no UTF-8 encoding: every store would keep U+FFFD instead, and a replay would differ.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Encodes `value`, or reports why it cannot be kept: `payload` is null when the codec threw, when its output is
 * not well-formed Unicode, or when the store says it cannot hold that text exactly (`unstorable`, e.g. U+0000 in
 * PostgreSQL `text`). The coordinator then records that the action succeeded without a storable result, so it
 * never runs again.
 */
export function tryEncode<T>(
  codec: Codec<T>,
  value: T,
  unstorable?: (payload: string) => string | undefined,
): { payload: string | null; encodeError?: unknown } {
  let payload: string;
  try {
    payload = codec.encode(value);
  } catch (encodeError) {
    return { payload: null, encodeError };
  }
  const reason = LONE_SURROGATE.test(payload)
    ? 'the encoded value is not well-formed Unicode (a lone surrogate)'
    : unstorable?.(payload);
  return reason === undefined ? { payload } : { payload: null, encodeError: new TypeError(reason) };
}
