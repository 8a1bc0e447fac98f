import { describe, expect, it } from '@jest/globals';
import { sleep } from '@retry-safe/testing';
import { LazyAbortController, LeaseRenewal } from '../../src/lease-renewal.js';
import type { IdempotencyStore, RenewRequest } from '../../src/store.js';

const LEASE_MS = 60;
const MAX_HOLD_MS = 200;
// Timers fire late on a busy machine: an upper bound with room, never a measurement of speed.
const ALLOWANCE_MS = 300;

/** A store that grants every renewal and remembers when each was asked, relative to `start`. */
function grantingStore(start: number) {
  const renewedAt: number[] = [];
  const store = {
    renew: async (request: RenewRequest) => {
      renewedAt.push(Date.now() - start);
      expect(request.leaseMs).toBe(LEASE_MS);
      return true;
    },
  } as unknown as IdempotencyStore;
  return { store, renewedAt };
}

describe('LeaseRenewal with maxHoldMs', () => {
  it('sends no renewal that would grant a lease past the cap, then loses the lease (reason max_hold)', async () => {
    const grantedAt = Date.now();
    const { store, renewedAt } = grantingStore(grantedAt);
    const controller = new LazyAbortController();
    const events: [string, string | undefined][] = [];
    const lease = new LeaseRenewal(
      store,
      { operation: 'cap.unit', key: 'k', owner: 'o', leaseMs: LEASE_MS },
      grantedAt,
      controller,
      (type, _durationMs, reason) => events.push([type, reason]),
      true,
      MAX_HOLD_MS,
    );
    const abortedAt = await new Promise<number>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve(Date.now() - grantedAt)),
    );
    await lease.stop();

    expect(renewedAt.length).toBeGreaterThanOrEqual(2);
    // Every renewal was sent early enough for its lease to end by the cap.
    for (const at of renewedAt) expect(at + LEASE_MS).toBeLessThanOrEqual(MAX_HOLD_MS + 1);
    expect(abortedAt).toBeGreaterThanOrEqual(MAX_HOLD_MS - LEASE_MS);
    expect(abortedAt).toBeLessThan(MAX_HOLD_MS + ALLOWANCE_MS);
    expect(lease.lost).toBe(true);
    expect(lease.lostReason).toBe('max_hold');
    expect(events.at(-1)).toEqual(['lease_lost', 'max_hold']);
    expect(events.slice(0, -1).every(([type]) => type === 'lease_renewed')).toBe(true);
  });

  it('without a cap, the same lease is renewed on and on', async () => {
    const grantedAt = Date.now();
    const { store, renewedAt } = grantingStore(grantedAt);
    const controller = new LazyAbortController();
    const lease = new LeaseRenewal(
      store,
      { operation: 'cap.unit', key: 'k', owner: 'o', leaseMs: LEASE_MS },
      grantedAt,
      controller,
      () => undefined,
      true,
    );
    await sleep(MAX_HOLD_MS + ALLOWANCE_MS);
    await lease.stop();
    expect(controller.aborted).toBe(false);
    expect(Math.max(...renewedAt)).toBeGreaterThan(MAX_HOLD_MS);
  });

  it('a lease that simply ran out without a cap says expired', async () => {
    const controller = new LazyAbortController();
    const events: [string, string | undefined][] = [];
    const lease = new LeaseRenewal(
      { renew: async () => true } as unknown as IdempotencyStore,
      { operation: 'cap.unit', key: 'k', owner: 'o', leaseMs: 20 },
      Date.now(),
      controller,
      (type, _durationMs, reason) => events.push([type, reason]),
      false,
    );
    await new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
    expect(lease.lostReason).toBe('expired');
    expect(events).toEqual([['lease_lost', 'expired']]);
  });
});
