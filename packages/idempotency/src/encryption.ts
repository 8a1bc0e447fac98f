import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Codec } from './codecs.js';
import { InvalidIdempotencyOptionsError } from './errors.js';

/** One key of {@link EncryptionOptions}. */
export interface EncryptionKey {
  /** Names the key in every record it writes: letters, digits, `_` and `-`, 1-32 characters. */
  readonly id: string;
  /** 32 bytes, or their base64. */
  readonly secret: Uint8Array | string;
}

/** Keys to encrypt stored results with, newest first. */
export interface EncryptionOptions {
  /**
   * The first encrypts every new record; a record is decrypted with the key it names, so a new key goes in front
   * and an old one stays until its records expired.
   */
  readonly keys: readonly EncryptionKey[];
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
// `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts.
const FORMAT = 'v1';
const IV_BYTES = 12;

/**
 * Wraps `inner` so what it encodes is stored encrypted with AES-256-GCM (a random IV per record, the tag checked on
 * read). A record that names an unknown key or was altered fails to decode, which the coordinator reports as a
 * corrupt record instead of running the action again.
 *
 * @throws InvalidIdempotencyOptionsError for no keys, a key that is not 32 bytes, or a bad or repeated id.
 */
export function encryptedCodec<T>(inner: Codec<T>, options: EncryptionOptions): Codec<T> {
  const keys = checkedKeys(options);
  const [newestId, newest] = keys.entries().next().value as [string, Buffer];
  return {
    encode(value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', newest, iv);
      const sealed = Buffer.concat([cipher.update(inner.encode(value), 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'));
      return [FORMAT, newestId, ...parts].join('.');
    },
    decode(stored) {
      const [format, id, iv, tag, sealed, ...extra] = stored.split('.');
      const key = id === undefined ? undefined : keys.get(id);
      if (format !== FORMAT || key === undefined || sealed === undefined || extra.length > 0) {
        throw new TypeError(`encryptedCodec: not a record of a known key (${format ?? ''}.${id ?? ''})`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]);
      return inner.decode(text.toString('utf8'));
    },
  };
}

function checkedKeys(options: EncryptionOptions): Map<string, Buffer> {
  if (!Array.isArray(options?.keys) || options.keys.length === 0) {
    throw new InvalidIdempotencyOptionsError('encryption.keys must list at least one key');
  }
  const keys = new Map<string, Buffer>();
  for (const { id, secret } of options.keys) {
    if (typeof id !== 'string' || !KEY_ID.test(id)) {
      throw new InvalidIdempotencyOptionsError(
        `encryption key id '${String(id)}' is not 1-32 of [A-Za-z0-9_-]`,
      );
    }
    if (keys.has(id)) throw new InvalidIdempotencyOptionsError(`encryption key id '${id}' is listed twice`);
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'base64') : Buffer.from(secret);
    if (bytes.length !== 32) {
      throw new InvalidIdempotencyOptionsError(
        `encryption key '${id}' has ${bytes.length} bytes; AES-256 needs 32 (or their base64)`,
      );
    }
    keys.set(id, bytes);
  }
  return keys;
}
