import { createHash } from 'node:crypto';

/** Hex characters of an {@link idempotencyKeyDigest}: 128 bits, so two keys of one run never share one. */
export const IDEMPOTENCY_KEY_DIGEST_LENGTH = 32;

/**
 * What a request journal (`GET /__requests`) keeps of an `Idempotency-Key`: the first 32 hex characters of its
 * SHA-256. A key is a client's capability (whoever holds it may replay the client's answer), so the journal, which
 * scenarios and diagrams read across tenants, keeps only its digest; a reader compares the digest of the key it
 * sent with this one. A digest is not a secret either: it names a key without letting anyone send it.
 */
export function idempotencyKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, IDEMPOTENCY_KEY_DIGEST_LENGTH);
}
