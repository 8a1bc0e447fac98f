import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  encryptedCodec,
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  jsonCodec,
  type CoordinateRequest,
  type EncryptionKey,
  type IdempotencyEvent,
} from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

interface Charge {
  id: string;
  amount: number;
  cardHolder: string;
}

const OPERATION = 'charge.encrypted';
const oldKey: EncryptionKey = { id: 'k2025', secret: randomBytes(32).toString('base64') };
const newKey: EncryptionKey = { id: 'k2026', secret: randomBytes(32) };
const secretCharge: Charge = { id: 'ch_8f3k2', amount: 987_654, cardHolder: 'Ada Lovelace' };

describe('encryptedCodec through the coordinator (memory store)', () => {
  let store: MemoryIdempotencyStore;
  let events: IdempotencyEvent[];
  let runs: number;
  beforeEach(() => {
    store = new MemoryIdempotencyStore();
    events = [];
    runs = 0;
  });
  afterEach(() => store.close());

  const coordinator = () => new IdempotencyCoordinator(store, { onEvent: (e) => events.push(e) });
  const request = (key: string, keys: readonly EncryptionKey[]): CoordinateRequest<Charge> => ({
    operation: OPERATION,
    key,
    ttlMs: 60_000,
    fingerprint: 'fp',
    codec: encryptedCodec(jsonCodec<Charge>(), { keys }),
  });
  const action = async (): Promise<Charge> => {
    runs++;
    return secretCharge;
  };
  /** The payload the store holds for `key`, read through a claim of another owner (as a replay would). */
  const storedPayload = async (key: string): Promise<string> => {
    const claim = await store.claim({
      operation: OPERATION,
      key,
      owner: 'probe',
      fingerprint: 'fp',
      leaseMs: 1_000,
      retainMs: 1_000,
    });
    if (claim.status !== 'completed' || claim.payload === null)
      throw new Error(`no payload: ${claim.status}`);
    return claim.payload;
  };

  it('stores no plaintext, and the replay returns the value without running the action', async () => {
    const first = await coordinator().coordinateWithOutcome(request('k1', [oldKey]), action);
    expect(first).toEqual({ value: secretCharge, outcome: 'executed', fencingToken: 1 });

    const payload = await storedPayload('k1');
    expect(payload).toMatch(/^v1\.k2025\./);
    for (const plaintext of ['ch_8f3k2', '987654', 'Ada', 'Lovelace', 'cardHolder', 'amount']) {
      expect(payload).not.toContain(plaintext);
    }
    // The same record read by the plain JSON codec is no JSON at all.
    expect(() => JSON.parse(payload)).toThrow(SyntaxError);

    const replay = await coordinator().coordinateWithOutcome(request('k1', [oldKey]), action);
    expect(replay).toEqual({ value: secretCharge, outcome: 'replayed', fencingToken: 1 });
    expect(runs).toBe(1);
  });

  it('after rotation (new key first) the old record still replays, and new records use the new key', async () => {
    await coordinator().coordinate(request('k-old', [oldKey]), action);
    const rotated = [newKey, oldKey];
    await expect(coordinator().coordinate(request('k-old', rotated), action)).resolves.toEqual(secretCharge);
    await coordinator().coordinate(request('k-new', rotated), action);
    expect(await storedPayload('k-new')).toMatch(/^v1\.k2026\./);
    expect(runs).toBe(2);
  });

  it('a record of a key no longer configured is corrupt: the action does not run again', async () => {
    await coordinator().coordinate(request('k-lost', [oldKey]), action);
    await expect(coordinator().coordinate(request('k-lost', [newKey]), action)).rejects.toMatchObject({
      code: IdempotencyErrorCode.CorruptRecord,
    });
    expect(runs).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['miss', 'corrupt_record']);
  });

  it('a tampered record is corrupt: the action does not run again', async () => {
    const sealed = encryptedCodec(jsonCodec<Charge>(), { keys: [oldKey] }).encode(secretCharge);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('AA') ? 'BB' : 'AA');
    await store.storeIfAbsent({
      operation: OPERATION,
      key: 'k-tampered',
      fingerprint: 'fp',
      payload: tampered,
      ttlMs: 60_000,
    });
    await expect(coordinator().coordinate(request('k-tampered', [oldKey]), action)).rejects.toMatchObject({
      code: IdempotencyErrorCode.CorruptRecord,
    });
    expect(runs).toBe(0);
  });
});
