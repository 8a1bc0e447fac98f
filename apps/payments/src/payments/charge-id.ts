import { createHash } from 'node:crypto';

// The namespace of Charge ids (a random UUID fixed once): ids of other name-based schemes never collide with ours.
const CHARGE_NAMESPACE = Buffer.from('3f1c9a52e0b84d7e9a61c2b7d05e4f18', 'hex');

/**
 * The id of the Charge that provider charge `providerChargeId` made for `key` in `operation`: a name-based UUID
 * (RFC 9562 version 5, SHA-1 over the namespace and the three names). The same inputs give the same id, so a
 * Charge re-executed after its answer or its completion was lost (the provider dedups by the provider key and
 * answers the same charge) carries the id its first 201 had; two real provider charges still get two ids.
 */
export function chargeIdOf(operation: string, key: string, providerChargeId: string): string {
  // Neither an operation nor a key holds a control character: the newlines keep the three names apart.
  const bytes = createHash('sha1')
    .update(CHARGE_NAMESPACE)
    .update(`${operation}\n${key}\n${providerChargeId}`, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
