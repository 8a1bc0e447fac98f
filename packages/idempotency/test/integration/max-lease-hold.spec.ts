import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sleep, whenAborted } from '@retry-safe/testing';
import {
  IdempotencyChannel,
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  InvalidIdempotencyOptionsError,
  jsonCodec,
  type ActionContext,
  type CoordinateRequest,
  type CoordinatorOptions,
  type IdempotencyEvent,
  type IdempotencyStore,
} from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

const LEASE_MS = 240;
const MAX_HOLD_MS = 960;
// Timers fire late on a busy machine: an upper bound with room, never a measurement of speed.
const ALLOWANCE_MS = 500;

const request = (key: string, extra: Partial<CoordinateRequest<string>> = {}): CoordinateRequest<string> => ({
  operation: 'hold.test',
  key,
  ttlMs: 60_000,
  codec: jsonCodec<string>(),
  ...extra,
});

/**
 * An action that hangs, deaf to its signal, until `release` is called; `aborted` says when its signal aborted and
 * `wasAborted` resolves then.
 */
function hungAction() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const aborted = { at: 0 };
  let signalled: (signal: AbortSignal) => void = () => {};
  const signal = new Promise<AbortSignal>((resolve) => (signalled = resolve));
  return {
    aborted,
    wasAborted: signal.then(whenAborted),
    release: () => release(),
    run: async ({ signal }: ActionContext): Promise<string> => {
      signalled(signal);
      void whenAborted(signal).then(() => (aborted.at = Date.now()));
      await released;
      return 'late';
    },
  };
}

describe('maxLeaseHoldMs (memory store)', () => {
  const stores: MemoryIdempotencyStore[] = [];
  const world = (options: CoordinatorOptions = {}) => {
    const store = new MemoryIdempotencyStore();
    stores.push(store);
    const events: IdempotencyEvent[] = [];
    const coordinator = new IdempotencyCoordinator(store, {
      leaseMs: LEASE_MS,
      inFlight: 'raise',
      onEvent: (event) => events.push(event),
      ...options,
    });
    return { store, events, coordinator };
  };
  const leaseLost: unknown[] = [];
  const onLeaseLost = (message: unknown) => leaseLost.push(message);
  beforeAll(() => {
    subscribe(IdempotencyChannel.LeaseLost, onLeaseLost);
  });
  afterEach(async () => {
    leaseLost.length = 0;
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  afterAll(() => {
    unsubscribe(IdempotencyChannel.LeaseLost, onLeaseLost);
  });

  it('a hung action loses its lease at the cap (its signal aborts), and another caller takes the key over', async () => {
    const { coordinator, events } = world({ maxLeaseHoldMs: MAX_HOLD_MS });
    const action = hungAction();
    const sentAt = Date.now();
    const first = coordinator.coordinateWithOutcome(request('k-hung'), action.run);
    await action.wasAborted;

    const heldMs = action.aborted.at - sentAt;
    // Renewed past the first lease (so renewals ran), stopped before the cap: no renewal granted a lease past it.
    expect(heldMs).toBeGreaterThanOrEqual(MAX_HOLD_MS - LEASE_MS);
    expect(heldMs).toBeLessThan(MAX_HOLD_MS + ALLOWANCE_MS);
    expect(events.filter((e) => e.type === 'lease_renewed').length).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.type === 'lease_lost')).toHaveLength(1);
    expect(leaseLost).toEqual([
      expect.objectContaining({
        operation: 'hold.test',
        fencingToken: 1,
        reason: 'max_hold',
        transactional: false,
      }),
    ]);

    // The key is free while the action still hangs: a retry owns it with the next fencing token and runs.
    const retry = await coordinator.coordinateWithOutcome(request('k-hung'), async () => 'second');
    expect(retry).toEqual({ value: 'second', outcome: 'executed', fencingToken: 2 });
    // When the hung action returns at last, its result is not written over the new owner's.
    action.release();
    await expect(first).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost, result: 'late' });
    await expect(coordinator.coordinate(request('k-hung'), async () => 'third')).resolves.toBe('second');
  });

  it('without the cap, the same action keeps its lease far past it (the cap is what ended it above)', async () => {
    const { coordinator, events } = world();
    const action = hungAction();
    const call = coordinator.coordinateWithOutcome(request('k-uncapped'), action.run);
    await sleep(MAX_HOLD_MS + ALLOWANCE_MS);
    expect(action.aborted.at).toBe(0);
    await expect(coordinator.coordinate(request('k-uncapped'), async () => 'dup')).rejects.toMatchObject({
      code: IdempotencyErrorCode.InProgress,
    });
    action.release();
    await expect(call).resolves.toEqual({ value: 'late', outcome: 'executed', fencingToken: 1 });
    expect(events.filter((e) => e.type === 'lease_lost')).toHaveLength(0);
    expect(leaseLost).toEqual([]);
  });

  it('per call: a request sets the cap on a coordinator without one, and lifts the coordinator cap', async () => {
    const capped = world({ maxLeaseHoldMs: MAX_HOLD_MS }).coordinator;
    const plain = world().coordinator;

    const hung = hungAction();
    const sentAt = Date.now();
    const capped1 = plain.coordinate(request('k-per-call', { maxLeaseHoldMs: MAX_HOLD_MS }), hung.run);
    await hung.wasAborted;
    expect(hung.aborted.at - sentAt).toBeLessThan(MAX_HOLD_MS + ALLOWANCE_MS);
    hung.release();
    await expect(capped1).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost });

    const slow = hungAction();
    const call = capped.coordinate(request('k-lifted', { maxLeaseHoldMs: 60_000 }), slow.run);
    await sleep(MAX_HOLD_MS + ALLOWANCE_MS);
    expect(slow.aborted.at).toBe(0);
    slow.release();
    await expect(call).resolves.toBe('late');
  });

  it('an action that ends under the cap is not affected', async () => {
    const { coordinator, events } = world({ maxLeaseHoldMs: MAX_HOLD_MS });
    const result = await coordinator.coordinateWithOutcome(request('k-quick'), async () => {
      await sleep(LEASE_MS);
      return 'done';
    });
    expect(result).toEqual({ value: 'done', outcome: 'executed', fencingToken: 1 });
    expect(events.map((e) => e.type).filter((type) => type !== 'lease_renewed')).toEqual(['miss']);
  });

  it('a cap below the lease (plus a third) means the lease is never renewed', async () => {
    const { coordinator, events } = world({ maxLeaseHoldMs: LEASE_MS });
    const action = hungAction();
    const call = coordinator.coordinate(request('k-short'), action.run);
    await action.wasAborted;
    action.release();
    await expect(call).rejects.toMatchObject({ code: IdempotencyErrorCode.LeaseLost });
    expect(events.filter((e) => e.type === 'lease_renewed')).toHaveLength(0);
    expect(leaseLost).toEqual([expect.objectContaining({ reason: 'max_hold' })]);
  });
});

describe('maxLeaseHoldMs validation', () => {
  const untouchable: IdempotencyStore = {
    claim: () => Promise.reject(new Error('claim must not be called')),
    complete: () => Promise.reject(new Error('complete must not be called')),
    renew: () => Promise.reject(new Error('renew must not be called')),
    release: () => Promise.reject(new Error('release must not be called')),
    storeIfAbsent: () => Promise.reject(new Error('storeIfAbsent must not be called')),
  };

  it.each([NaN, 9, 1.5, -1, 30 * 86_400_000 + 1, '600' as never, Infinity])(
    'refuses %p in the constructor and per call, before the store is touched',
    async (maxLeaseHoldMs) => {
      expect(() => new IdempotencyCoordinator(untouchable, { maxLeaseHoldMs })).toThrow(
        InvalidIdempotencyOptionsError,
      );
      expect(() => new IdempotencyCoordinator(untouchable, { maxLeaseHoldMs })).toThrow(
        /^maxLeaseHoldMs must be/,
      );
      const coordinator = new IdempotencyCoordinator(untouchable);
      await expect(
        coordinator.coordinate(request('k', { maxLeaseHoldMs }), async () => 'never'),
      ).rejects.toMatchObject({ code: IdempotencyErrorCode.InvalidOptions });
    },
  );

  it('accepts the bounds', () => {
    expect(() => new IdempotencyCoordinator(untouchable, { maxLeaseHoldMs: 10 })).not.toThrow();
    expect(() => new IdempotencyCoordinator(untouchable, { maxLeaseHoldMs: 30 * 86_400_000 })).not.toThrow();
  });
});
