import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  encryptedCodec,
  IdempotencyErrorCode,
  InvalidIdempotencyOptionsError,
  jsonCodec,
  voidCodec,
  type EncryptionKey,
} from '../../src/index.js';

interface Charge {
  id: string;
  amount: number;
  card: string;
}

const charge: Charge = { id: 'ch_1', amount: 4242, card: '4242-4242-4242-4242' };
const key = (id: string): EncryptionKey => ({ id, secret: randomBytes(32) });
const json = jsonCodec<Charge>();

/** Flips one bit of the base64url digit at `index` of `text`, staying in the base64url alphabet. */
function flip(text: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const at = alphabet.indexOf(text[index]!);
  // The top bit of the 6: the last digit of a part may carry only 2 or 4 bits, the low ones being padding.
  return text.slice(0, index) + alphabet[at ^ 32] + text.slice(index + 1);
}

describe('encryptedCodec', () => {
  it('round-trips any JSON value, and stores none of it in clear', () => {
    const codec = encryptedCodec(jsonCodec<unknown>(), { keys: [key('k1')] });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const stored = codec.encode(value);
        expect(codec.decode(stored)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(stored).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/);
      }),
    );
    const stored = codec.encode(charge);
    for (const plaintext of ['ch_1', '4242', 'amount', 'card']) expect(stored).not.toContain(plaintext);
  });

  it('round-trips an empty plaintext (voidCodec) and text with U+0000 and astral characters', () => {
    const empty = encryptedCodec(voidCodec, { keys: [key('k1')] });
    expect(empty.decode(empty.encode())).toBeUndefined();
    const text = encryptedCodec(jsonCodec<string>(), { keys: [key('k1')] });
    expect(text.decode(text.encode('a\u0000b😀é'))).toBe('a\u0000b😀é');
  });

  it('draws a fresh IV per record: the same value never gives the same text', () => {
    const codec = encryptedCodec(json, { keys: [key('k1')] });
    const texts = new Set(Array.from({ length: 50 }, () => codec.encode(charge)));
    expect(texts.size).toBe(50);
  });

  it('rotates keys: a record of the old key still reads once a new key is put first; new records use the new one', () => {
    const oldKey = key('2025-q4');
    const newKey = { id: '2026-q1', secret: randomBytes(32).toString('base64') };
    const before = encryptedCodec(json, { keys: [oldKey] });
    const written = before.encode(charge);
    expect(written.split('.')[1]).toBe('2025-q4');

    const rotated = encryptedCodec(json, { keys: [newKey, oldKey] });
    expect(rotated.decode(written)).toEqual(charge);
    const rewritten = rotated.encode(charge);
    expect(rewritten.split('.')[1]).toBe('2026-q1');
    // The old key alone cannot read what the new one wrote.
    expect(() => before.decode(rewritten)).toThrow("key '2026-q1', which is not configured");
  });

  it('refuses a record of a key that is not configured', () => {
    const stored = encryptedCodec(json, { keys: [key('gone')] }).encode(charge);
    const other = encryptedCodec(json, { keys: [key('k2'), key('k3')] });
    expect(() => other.decode(stored)).toThrow("key 'gone', which is not configured");
  });

  it('refuses a record encrypted by a different secret under the same id', () => {
    const stored = encryptedCodec(json, { keys: [key('k1')] }).encode(charge);
    expect(() => encryptedCodec(json, { keys: [key('k1')] }).decode(stored)).toThrow('does not authenticate');
  });

  it('refuses a tampered record: any bit of the IV, the tag or the ciphertext', () => {
    const codec = encryptedCodec(json, { keys: [key('k1')] });
    const stored = codec.encode(charge);
    const start = 'v1.k1.'.length;
    for (let index = start; index < stored.length; index++) {
      if (stored[index] === '.') continue;
      expect(() => codec.decode(flip(stored, index))).toThrow(TypeError);
    }
  });

  it('refuses a record whose key id was rewritten to another configured key (the id is authenticated)', () => {
    const k1 = key('k1');
    const k2 = { id: 'k2', secret: k1.secret };
    const codec = encryptedCodec(json, { keys: [k1, k2] });
    const stored = codec.encode(charge);
    // Same secret under both ids: only the authenticated id tells them apart.
    expect(() => codec.decode(stored.replace('v1.k1.', 'v1.k2.'))).toThrow('does not authenticate');
  });

  it.each([
    ['plaintext JSON (written before encryption was on)', '{"id":"ch_1"}'],
    ['an unknown format', 'v2.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AA'],
    ['too few parts', 'v1.k1.AAAA'],
    ['too many parts', 'v1.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AA.AA'],
    ['characters outside base64url', 'v1.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.A+/='],
    ['a short tag', 'v1.k1.AAAAAAAAAAAAAAAA.AAAA.AA'],
    ['a short IV', 'v1.k1.AAAA.AAAAAAAAAAAAAAAAAAAAAA.AA'],
    ['an empty text', ''],
  ])('refuses %s', (_, stored) => {
    const codec = encryptedCodec(json, { keys: [key('k1')] });
    expect(() => codec.decode(stored)).toThrow(TypeError);
  });

  it('refuses a lone surrogate from the inner codec (it would come back as U+FFFD)', () => {
    const codec = encryptedCodec(jsonCodec<string>(), { keys: [key('k1')] });
    expect(() => codec.encode('\uD800')).not.toThrow();
    const raw = encryptedCodec({ encode: (s: string) => s, decode: (s) => s }, { keys: [key('k1')] });
    expect(() => raw.encode('a\uD800')).toThrow('lone surrogate');
  });

  it('takes a base64 secret in either alphabet, padded or not, and the same key reads it', () => {
    const bytes = randomBytes(32);
    const ids = ['std', 'unpadded', 'url'];
    const secrets = [
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=+$/, ''),
      bytes.toString('base64url'),
    ];
    const stored = encryptedCodec(json, { keys: [{ id: 'k', secret: bytes }] }).encode(charge);
    for (const [index, secret] of secrets.entries()) {
      const codec = encryptedCodec(json, { keys: [{ id: 'k', secret }] });
      expect([ids[index], codec.decode(stored)]).toEqual([ids[index], charge]);
    }
  });

  it('keeps its own copy of a secret given as bytes', () => {
    const secret = randomBytes(32);
    const codec = encryptedCodec(json, { keys: [{ id: 'k1', secret }] });
    const stored = codec.encode(charge);
    secret.fill(0);
    expect(codec.decode(stored)).toEqual(charge);
  });
});

describe('encryptedCodec refuses bad keys when it is made', () => {
  const good = randomBytes(32);
  it.each<[string, unknown, RegExp]>([
    ['no options', undefined, /at least one key/],
    ['no keys', { keys: [] }, /at least one key/],
    ['keys that are not a list', { keys: 'k1' }, /at least one key/],
    ['a missing key', { keys: [undefined] }, /keys\[0\]\.id must be a non-empty string/],
    ['an empty id', { keys: [{ id: '', secret: good }] }, /keys\[0\]\.id must be a non-empty string/],
    ['an id that is not a string', { keys: [{ id: 7, secret: good }] }, /must be a non-empty string/],
    ['an id with the separator', { keys: [{ id: 'k.1', secret: good }] }, /'k\.1' contains '\.'/],
    ['an id with a space', { keys: [{ id: 'k 1', secret: good }] }, /contains '\.', whitespace/],
    ['an id with a control character', { keys: [{ id: 'k\u0000', secret: good }] }, /control characters/],
    ['an id of 65 characters', { keys: [{ id: 'k'.repeat(65), secret: good }] }, /longer than 64/],
    [
      'an id listed twice',
      {
        keys: [
          { id: 'k1', secret: good },
          { id: 'k1', secret: randomBytes(32) },
        ],
      },
      /keys\[1\]\.id 'k1' is listed twice/,
    ],
    ['16 bytes', { keys: [{ id: 'k1', secret: randomBytes(16) }] }, /has 16 bytes; AES-256 needs 32/],
    ['33 bytes', { keys: [{ id: 'k1', secret: randomBytes(33) }] }, /has 33 bytes/],
    ['no secret', { keys: [{ id: 'k1' }] }, /needs a secret/],
    ['a secret of another type', { keys: [{ id: 'k1', secret: 42 }] }, /needs a secret/],
    [
      'a 32-character passphrase (not base64 of 32 bytes)',
      { keys: [{ id: 'k1', secret: 'correct horse battery staple 123' }] },
      /is not the base64 of 32 bytes/,
    ],
    [
      'the base64 of 24 bytes',
      { keys: [{ id: 'k1', secret: randomBytes(24).toString('base64') }] },
      /is not the base64 of 32 bytes/,
    ],
    [
      'base64 with a trailing newline',
      { keys: [{ id: 'k1', secret: `${good.toString('base64')}\n` }] },
      /is not the base64 of 32 bytes/,
    ],
    [
      'base64 with a character outside the alphabet',
      { keys: [{ id: 'k1', secret: `${good.toString('base64').slice(0, 42)}!=` }] },
      /keys\[0\] \('k1'\) is not the base64/,
    ],
    [
      'a bad second key (after a good one)',
      {
        keys: [
          { id: 'k1', secret: good },
          { id: 'k2', secret: randomBytes(31) },
        ],
      },
      /keys\[1\] \('k2'\) has 31 bytes/,
    ],
  ])('%s', (_, options, message) => {
    let thrown: unknown;
    try {
      encryptedCodec(json, options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidIdempotencyOptionsError);
    expect((thrown as InvalidIdempotencyOptionsError).code).toBe(IdempotencyErrorCode.InvalidOptions);
    expect((thrown as Error).message).toMatch(message);
  });
});
