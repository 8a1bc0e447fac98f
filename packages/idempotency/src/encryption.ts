import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Codec } from './codecs.js';
import { InvalidIdempotencyOptionsError } from './errors.js';

/** One key of {@link EncryptionOptions}. */
export interface EncryptionKey {
  /**
   * Names the key in every record it writes (stored in clear, so never a secret): 1-64 characters, no `.`,
   * whitespace or control characters, unique in the list.
   */
  readonly id: string;
  /** The AES-256 key: 32 bytes, or their base64 (standard or URL-safe alphabet, padding optional). */
  readonly secret: Uint8Array | string;
}

/** Keys to encrypt stored results with, newest first. */
export interface EncryptionOptions {
  /**
   * The first encrypts every new record; a record is decrypted with the key it names, so a new key goes in front
   * and an old one stays (second, third...) until the records it wrote have expired (their TTL at most).
   */
  readonly keys: readonly EncryptionKey[];
}

/**
 * The stored text is `v1.<key id>.<iv>.<tag>.<ciphertext>`, the last three in base64url. The format and key id are
 * the GCM's additional data: a record whose id was rewritten to another key fails to authenticate like any other
 * alteration.
 */
const FORMAT = 'v1';
const SEPARATOR = '.';
const IV_BYTES = 12;
// Pinned on decryption too: without it Node accepts a truncated tag, and a 4-byte tag can be forged by trying.
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const MAX_ID_LENGTH = 64;
// Whitespace and controls are refused so that an id read back from a record is the id that was configured.
const BAD_ID_CHARACTER = /[.\s\p{Cc}\p{Cs}]/u;
// 32 bytes are 43 base64 digits and one `=` of padding (optional); either alphabet. Buffer.from(_, 'base64')
// skips characters it does not know, so the text is checked first: a typo must not become another key.
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/_-]{43}=?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
// A lone surrogate has no UTF-8 encoding: it would be decrypted as U+FFFD, and a replay would differ.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Wraps `inner` so that what it encodes is stored encrypted with AES-256-GCM: a random 12-byte IV per record, and
 * a 16-byte authentication tag checked on every read. Records are written with `options.keys[0]` and read with the
 * key they name, so keys rotate without losing records (put the new key first, drop the old one once its records
 * expired).
 *
 * `decode` throws for a record that names a key not in the list, that was altered, or that is not in this format
 * (e.g. written before encryption was turned on): the coordinator then reports `IDEMPOTENCY_CORRUPT_RECORD` and
 * does not run the action again. Its messages name the key id, never the plaintext.
 *
 * @throws InvalidIdempotencyOptionsError at once for no keys, a secret that is not 32 bytes (or their base64), or
 * an id that is empty, too long, contains `.`, whitespace or control characters, or is listed twice.
 */
export function encryptedCodec<T>(inner: Codec<T>, options: EncryptionOptions): Codec<T> {
  const keys = checkedKeys(options);
  const [newestId, newest] = keys.entries().next().value as [string, KeyObject];
  const newestAad = additionalData(newestId);
  return {
    encode(value) {
      const plaintext = inner.encode(value);
      if (LONE_SURROGATE.test(plaintext)) {
        throw new TypeError(
          'encryptedCodec: the encoded value is not well-formed Unicode (a lone surrogate)',
        );
      }
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', newest, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(newestAad);
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        FORMAT,
        newestId,
        iv.toString('base64url'),
        tag.toString('base64url'),
        sealed.toString('base64url'),
      ].join(SEPARATOR);
    },
    decode(stored) {
      const parts = typeof stored === 'string' ? stored.split(SEPARATOR) : [];
      const [format, id, iv, tag, sealed] = parts;
      if (parts.length !== 5 || format !== FORMAT || !parts.slice(2).every((part) => BASE64URL.test(part))) {
        throw new TypeError('encryptedCodec: the stored text is not an encrypted record of this format');
      }
      const key = keys.get(id!);
      if (key === undefined) {
        throw new TypeError(
          `encryptedCodec: the record was encrypted with key '${id}', which is not configured`,
        );
      }
      const ivBytes = Buffer.from(iv!, 'base64url');
      const tagBytes = Buffer.from(tag!, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
        throw new TypeError('encryptedCodec: the record has an IV or tag of the wrong length');
      }
      let plaintext: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
        decipher.setAAD(additionalData(id!));
        decipher.setAuthTag(tagBytes);
        const sealedBytes = Buffer.from(sealed!, 'base64url');
        plaintext = Buffer.concat([decipher.update(sealedBytes), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new TypeError(`encryptedCodec: the record does not authenticate with key '${id}' (altered?)`, {
          cause,
        });
      }
      return inner.decode(plaintext);
    },
  };
}

function additionalData(id: string): Buffer {
  return Buffer.from(`${FORMAT}${SEPARATOR}${id}`, 'utf8');
}

/** The keys by id, in the order given (the first is the newest), each checked. */
function checkedKeys(options: EncryptionOptions): Map<string, KeyObject> {
  const list: unknown = (options as Partial<EncryptionOptions> | undefined)?.keys;
  if (!Array.isArray(list) || list.length === 0) {
    throw new InvalidIdempotencyOptionsError('encryption.keys must list at least one key, newest first');
  }
  const keys = new Map<string, KeyObject>();
  list.forEach((entry: unknown, index) => {
    const { id, secret } = (entry ?? {}) as Partial<EncryptionKey>;
    const problem = idProblem(id);
    if (problem !== undefined) {
      throw new InvalidIdempotencyOptionsError(`encryption.keys[${index}].id ${problem}`);
    }
    if (keys.has(id!)) {
      throw new InvalidIdempotencyOptionsError(`encryption.keys[${index}].id '${id}' is listed twice`);
    }
    keys.set(id!, secretKey(secret, `encryption.keys[${index}] ('${id}')`));
  });
  return keys;
}

function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'must be a non-empty string';
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (BAD_ID_CHARACTER.test(id)) return `'${id}' contains '${SEPARATOR}', whitespace or control characters`;
  return undefined;
}

function secretKey(secret: unknown, name: string): KeyObject {
  let bytes: Buffer;
  if (secret instanceof Uint8Array) {
    if (secret.length !== KEY_BYTES) {
      throw new InvalidIdempotencyOptionsError(
        `${name} has ${secret.length} bytes; AES-256 needs ${KEY_BYTES}`,
      );
    }
    // Copied (createSecretKey keeps its own copy too): the caller's buffer may be zeroed or reused afterwards.
    bytes = Buffer.from(secret);
  } else if (typeof secret === 'string') {
    if (!BASE64_OF_32_BYTES.test(secret)) {
      throw new InvalidIdempotencyOptionsError(
        `${name} is not the base64 of ${KEY_BYTES} bytes (44 characters, e.g. from \`openssl rand -base64 32\`)`,
      );
    }
    bytes = Buffer.from(secret, 'base64');
  } else {
    throw new InvalidIdempotencyOptionsError(`${name} needs a secret: ${KEY_BYTES} bytes or their base64`);
  }
  return createSecretKey(bytes);
}
