import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { sleep } from '@retry-safe/testing';
import {
  IdempotencyChannel,
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  IdempotencyStoreUnavailableError,
  idempotencyKeyHash,
  jsonCodec,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyStore,
} from '../../src/index.js';
import { recordChannels } from './channel-recorder.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

const OPERATION = 'channels.charge';

const { published, clear, messagesPublished, messages } = recordChannels();

/** A store that behaves like `inner` except for the methods given. */
function storeWith(inner: MemoryIdempotencyStore, overrides: Partial<IdempotencyStore>): IdempotencyStore {
  return {
    claim: (r) => inner.claim(r),
    complete: (r) => inner.complete(r),
    renew: (r) => inner.renew(r),
    release: (r) => inner.release(r),
    storeIfAbsent: (r) => inner.storeIfAbsent(r),
    watch: (id, listener) => inner.watch(id, listener),
    ...overrides,
  };
}

const down = () => Promise.reject(new IdempotencyStoreUnavailableError('store down', {}));

describe('diagnostics channels (memory store)', () => {
  let store: MemoryIdempotencyStore;
  // A key unlike anything else in a message, so a leak of it cannot hide.
  let key: string;
  let base: { operation: string; keyHash: string; transactional: boolean };

  beforeEach(() => {
    store = new MemoryIdempotencyStore();
    key = `raw-key-${randomUUID()}`;
    base = { operation: OPERATION, keyHash: idempotencyKeyHash(key), transactional: false };
    clear();
  });
  afterEach(async () => {
    // No message of any test carries the raw key, in any field.
    expect(JSON.stringify(published)).not.toContain(key);
    expect(JSON.stringify(published)).not.toContain(key.slice('raw-key-'.length));
    await store.close();
  });

  const coordinator = (options: CoordinatorOptions = {}, over: IdempotencyStore = store) =>
    new IdempotencyCoordinator(over, { leaseMs: 300, ...options });
  const request = (extra: Partial<CoordinateRequest<string>> = {}): CoordinateRequest<string> => ({
    operation: OPERATION,
    key,
    ttlMs: 60_000,
    codec: jsonCodec<string>(),
    fingerprint: 'fp-a',
    ...extra,
  });

  it('uses the documented names', () => {
    expect(Object.values(IdempotencyChannel)).toEqual([
      'retry-safe:idempotency:claimed',
      'retry-safe:idempotency:replayed',
      'retry-safe:idempotency:in_progress',
      'retry-safe:idempotency:key_reused',
      'retry-safe:idempotency:stored',
      'retry-safe:idempotency:released',
      'retry-safe:idempotency:lease_lost',
      'retry-safe:idempotency:store_unavailable',
    ]);
    expect(base.keyHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a first call: claimed, then stored; a repeat: replayed', async () => {
    const c = coordinator();
    await expect(c.coordinate(request(), async () => 'v1')).resolves.toBe('v1');
    await expect(c.coordinate(request(), async () => 'v2')).resolves.toBe('v1');
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['replayed', { ...base, fencingToken: 1, waited: false }],
    ]);
  });

  it('a value the codec cannot encode: stored as unencodable', async () => {
    const codec = {
      encode: () => {
        throw new Error('no');
      },
      decode: (s: string) => s,
    };
    await expect(coordinator().coordinate(request({ codec }), async () => 'v')).rejects.toMatchObject({
      code: IdempotencyErrorCode.UnencodableResult,
    });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: true }],
    ]);
  });

  it('key reuse: key_reused, with the state of the record it met', async () => {
    const c = coordinator({ inFlight: 'raise' });
    let finish: () => void = () => {};
    const first = c.coordinate(request(), () => new Promise<string>((r) => (finish = () => r('v'))));
    await messagesPublished('the claim', 1);
    await expect(c.coordinate(request({ fingerprint: 'fp-b' }), async () => 'x')).rejects.toMatchObject({
      code: IdempotencyErrorCode.KeyReuse,
    });
    finish();
    await first;
    await expect(c.coordinate(request({ fingerprint: 'fp-b' }), async () => 'x')).rejects.toMatchObject({
      code: IdempotencyErrorCode.KeyReuse,
    });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['key_reused', { ...base, storedState: 'pending' }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['key_reused', { ...base, storedState: 'completed' }],
    ]);
  });

  it('raise: in_progress, once per call, with the time left on the lease', async () => {
    const c = coordinator({ inFlight: 'raise' });
    let finish: () => void = () => {};
    const first = c.coordinate(request(), () => new Promise<string>((r) => (finish = () => r('v'))));
    await messagesPublished('the claim', 1);
    await expect(c.coordinate(request(), async () => 'x')).rejects.toMatchObject({
      code: IdempotencyErrorCode.InProgress,
    });
    finish();
    await first;
    const [, inProgress] = messages()[1]!;
    expect(messages().map(([name]) => name)).toEqual(['claimed', 'in_progress', 'stored']);
    expect(inProgress).toEqual({ ...base, retryAfterMs: expect.any(Number), inFlight: 'raise' });
    expect(inProgress['retryAfterMs']).toBeGreaterThan(0);
    expect(inProgress['retryAfterMs']).toBeLessThanOrEqual(300);
  });

  it('wait: in_progress, then replayed after waiting', async () => {
    const c = coordinator({ inFlight: 'wait' });
    let finish: () => void = () => {};
    const first = c.coordinate(request(), () => new Promise<string>((r) => (finish = () => r('v'))));
    await messagesPublished('the claim', 1);
    const waiter = c.coordinate(request(), async () => 'x');
    await messagesPublished('the waiter', 2);
    finish();
    await expect(Promise.all([first, waiter])).resolves.toEqual(['v', 'v']);
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['in_progress', { ...base, retryAfterMs: expect.any(Number), inFlight: 'wait' }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['replayed', { ...base, fencingToken: 1, waited: true }],
    ]);
  });

  it('an action that throws: released; a waiter then takes the key over (claimed after waiting)', async () => {
    const c = coordinator({ inFlight: 'wait' });
    let fail: () => void = () => {};
    const first = c.coordinate(
      request(),
      () => new Promise<string>((_, reject) => (fail = () => reject(new Error('provider down')))),
    );
    await messagesPublished('the claim', 1);
    const waiter = c.coordinate(request(), async () => 'second');
    await messagesPublished('the waiter', 2);
    fail();
    await expect(first).rejects.toThrow('provider down');
    await expect(waiter).resolves.toBe('second');
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['in_progress', { ...base, retryAfterMs: expect.any(Number), inFlight: 'wait' }],
      ['released', { ...base, fencingToken: 1, confirmed: true }],
      ['claimed', { ...base, fencingToken: 2, waited: true }],
      ['stored', { ...base, fencingToken: 2, outcome: 'executed', unencodable: false }],
    ]);
  });

  it('run mode: in_progress, and the duplicate is not stored over the owner', async () => {
    const c = coordinator({ inFlight: 'run' });
    let finish: () => void = () => {};
    const first = c.coordinate(request(), () => new Promise<string>((r) => (finish = () => r('v'))));
    await messagesPublished('the claim', 1);
    await expect(c.coordinateWithOutcome(request(), async () => 'dup')).resolves.toMatchObject({
      outcome: 'unprotected',
    });
    finish();
    await first;
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['in_progress', { ...base, retryAfterMs: expect.any(Number), inFlight: 'run' }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
    ]);
  });

  it('store down at the claim, fail-closed: store_unavailable, nothing runs', async () => {
    const c = coordinator({}, storeWith(store, { claim: down }));
    let runs = 0;
    await expect(c.coordinate(request(), async () => String(++runs))).rejects.toMatchObject({
      code: IdempotencyErrorCode.StoreUnavailable,
    });
    expect(runs).toBe(0);
    expect(messages()).toEqual([
      ['store_unavailable', { ...base, phase: 'claim', onStoreUnavailable: 'fail-closed' }],
    ]);
  });

  it('store down at the claim, fail-open: store_unavailable, then the unprotected result stored', async () => {
    const c = coordinator({ onStoreUnavailable: 'fail-open' }, storeWith(store, { claim: down }));
    await expect(c.coordinateWithOutcome(request(), async () => 'open')).resolves.toEqual({
      value: 'open',
      outcome: 'unprotected',
      fencingToken: 0,
    });
    expect(messages()).toEqual([
      ['store_unavailable', { ...base, phase: 'claim', onStoreUnavailable: 'fail-open' }],
      ['stored', { ...base, fencingToken: 0, outcome: 'unprotected', unencodable: false }],
    ]);
  });

  it('fail-open with the store down for good: store_unavailable for the claim and for storing', async () => {
    const c = coordinator(
      { onStoreUnavailable: 'fail-open' },
      storeWith(store, { claim: down, storeIfAbsent: down }),
    );
    await expect(c.coordinate(request(), async () => 'open')).resolves.toBe('open');
    expect(messages()).toEqual([
      ['store_unavailable', { ...base, phase: 'claim', onStoreUnavailable: 'fail-open' }],
      ['store_unavailable', { ...base, phase: 'store_if_absent' }],
    ]);
  });

  it('the completion fails: store_unavailable (with the fencing token), nothing stored', async () => {
    const c = coordinator({}, storeWith(store, { complete: down }));
    await expect(c.coordinate(request(), async () => 'v')).resolves.toBe('v');
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['store_unavailable', { ...base, phase: 'complete', fencingToken: 1 }],
    ]);
  });

  it('the release fails: store_unavailable, then released unconfirmed', async () => {
    const c = coordinator({}, storeWith(store, { release: down }));
    await expect(
      c.coordinate(request(), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['store_unavailable', { ...base, phase: 'release', fencingToken: 1 }],
      ['released', { ...base, fencingToken: 1, confirmed: false }],
    ]);
  });

  it('a renewal refused: lease_lost (refused) and the signal aborts', async () => {
    const c = coordinator({ leaseMs: 60 }, storeWith(store, { renew: async () => false }));
    await expect(
      c.coordinate(request(), async ({ signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        throw signal.reason;
      }),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['lease_lost', { ...base, fencingToken: 1, reason: 'refused' }],
      ['released', { ...base, fencingToken: 1, confirmed: true }],
    ]);
  });

  it('renewals failing until the lease ran out: store_unavailable (renew), then lease_lost (expired)', async () => {
    const c = coordinator({ leaseMs: 60 }, storeWith(store, { renew: down }));
    await expect(
      c.coordinate(request(), async ({ signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return 'late';
      }),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
    const names = messages().map(([name]) => name);
    expect(names[0]).toBe('claimed');
    expect(names.slice(1, -2).length).toBeGreaterThanOrEqual(1);
    expect(new Set(names.slice(1, -2))).toEqual(new Set(['store_unavailable']));
    expect(messages().slice(1, -2)[0]).toEqual([
      'store_unavailable',
      { ...base, phase: 'renew', fencingToken: 1 },
    ]);
    // Its result is still written: the record was still this owner's (nobody took it over).
    expect(messages().slice(-2)).toEqual([
      ['lease_lost', { ...base, fencingToken: 1, reason: 'expired' }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
    ]);
  });

  it('the record taken away while the action ran: the completion is refused, lease_lost (refused)', async () => {
    const c = coordinator({ renewLease: false });
    await expect(
      c.coordinate(request(), async () => {
        store.delete({ operation: OPERATION, key });
        return 'v';
      }),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['lease_lost', { ...base, fencingToken: 1, reason: 'refused' }],
    ]);
  });

  it('the wake-up subscription fails while waiting: store_unavailable (watch), and the wait polls on', async () => {
    const c = coordinator({ inFlight: 'wait' }, storeWith(store, { watch: down }));
    let finish: () => void = () => {};
    const first = c.coordinate(request(), () => new Promise<string>((r) => (finish = () => r('v'))));
    await messagesPublished('the claim', 1);
    const waiter = c.coordinate(request(), async () => 'x');
    await messagesPublished('the failed watch', 3);
    finish();
    await expect(Promise.all([first, waiter])).resolves.toEqual(['v', 'v']);
    expect(messages()).toEqual([
      ['claimed', { ...base, fencingToken: 1, waited: false }],
      ['in_progress', { ...base, retryAfterMs: expect.any(Number), inFlight: 'wait' }],
      ['store_unavailable', { ...base, phase: 'watch' }],
      ['stored', { ...base, fencingToken: 1, outcome: 'executed', unencodable: false }],
      ['replayed', { ...base, fencingToken: 1, waited: true }],
    ]);
  });

  it('durationMs counts from the start of the call', async () => {
    const c = coordinator();
    await c.coordinate(request(), async () => {
      await sleep(50);
      return 'v';
    });
    const [claimed, stored] = published.map(([, message]) => message['durationMs'] as number);
    // Both count from the call's start: the stored one includes the action's 50 ms, the claimed one does not.
    expect(stored! - claimed!).toBeGreaterThanOrEqual(45);
    expect(claimed!).toBeGreaterThanOrEqual(0);
  });
});
