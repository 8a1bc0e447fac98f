import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_DIGEST_LENGTH, idempotencyKeyDigest } from '../../src/index.js';

describe('idempotencyKeyDigest: what a journal keeps of a key', () => {
  it('is the first 32 hex characters of the SHA-256 of the key (UTF-8), never the key', () => {
    const key = 'a0b1c2d3-secret-key';
    const digest = idempotencyKeyDigest(key);
    expect(digest).toBe(createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32));
    expect(digest).toMatch(new RegExp(`^[0-9a-f]{${IDEMPOTENCY_KEY_DIGEST_LENGTH}}$`));
    expect(digest).not.toContain(key);
  });

  it('names one key with one digest, and two keys with two', () => {
    expect(idempotencyKeyDigest('k-1')).toBe(idempotencyKeyDigest('k-1'));
    expect(idempotencyKeyDigest('k-1')).not.toBe(idempotencyKeyDigest('k-2'));
  });
});
