import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { CLOCK_SLACK_MS, sleep } from '@retry-safe/testing';
import { LazyAbortController, LeaseRenewal } from '../../src/lease-renewal.js';
import type { IdempotencyStore } from '../../src/store.js';

const LEASE_MS = 60;

/** A store whose renew answers with `renew()`; nothing else is called by a lease. */
function storeRenewing(renew: () => Promise<boolean>) {
  const calls = { renew: 0 };
  const store = {
    renew: () => {
      calls.renew++;
      return renew();
    },
  } as unknown as IdempotencyStore;
  return { store, calls };
}

function lease(store: IdempotencyStore, renewing: boolean, leaseMs = LEASE_MS) {
  const controller = new LazyAbortController();
  const events: string[] = [];
  const request = { operation: 'lease.unit', key: 'k', owner: 'o', leaseMs };
  const watch = new LeaseRenewal(
    store,
    request,
    Date.now(),
    controller,
    (type) => events.push(type),
    renewing,
  );
  return { watch, controller, events };
}

describe('LeaseRenewal', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('arms one timer for a lease, not one for the renewal and one for the deadline', () => {
    const timers = jest.spyOn(globalThis, 'setTimeout');
    const { store } = storeRenewing(async () => true);
    const { watch } = lease(store, true);
    expect(timers).toHaveBeenCalledTimes(1);
    expect(watch.stop()).toBeUndefined();
  });

  it('renews every third of the lease and keeps it while renewals succeed', async () => {
    const leaseMs = 300;
    const { store, calls } = storeRenewing(async () => true);
    const { watch, controller, events } = lease(store, true, leaseMs);
    await sleep(leaseMs * 2.5);
    await watch.stop();
    expect(calls.renew).toBeGreaterThanOrEqual(3);
    expect(controller.aborted).toBe(false);
    expect(watch.lost).toBe(false);
    expect(events.every((type) => type === 'lease_renewed')).toBe(true);
  });

  it('aborts at once when a renewal is refused', async () => {
    let refuse: (renewed: boolean) => void = () => {};
    let asked: () => void = () => {};
    const renewalSent = new Promise<void>((resolve) => (asked = resolve));
    const { store, calls } = storeRenewing(
      () =>
        new Promise<boolean>((answer) => {
          refuse = answer;
          asked();
        }),
    );
    // The renewal is due after 100 ms, the deadline after 300: the refusal, answered at once, aborts first.
    const { watch, controller, events } = lease(store, true, 300);
    await renewalSent;
    expect(controller.aborted).toBe(false);
    refuse(false);
    await sleep(0);
    expect(calls.renew).toBe(1);
    expect(controller.aborted).toBe(true);
    expect(watch.lost).toBe(true);
    expect(events).toEqual(['lease_lost']);
  });

  it('aborts at the deadline, never earlier, while a renewal hangs', async () => {
    const { store, calls } = storeRenewing(() => new Promise<boolean>(() => {}));
    const start = Date.now();
    const { controller } = lease(store, true);
    const abortedAt = new Promise<number>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve(Date.now() - start)),
    );
    expect(await abortedAt).toBeGreaterThanOrEqual(LEASE_MS - CLOCK_SLACK_MS);
    expect(calls.renew).toBe(1);
  });

  it('without renewal: no renew call, lost at the deadline', async () => {
    const { store, calls } = storeRenewing(async () => true);
    const start = Date.now();
    const { watch, controller } = lease(store, false);
    const abortedAt = new Promise<number>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve(Date.now() - start)),
    );
    expect(await abortedAt).toBeGreaterThanOrEqual(LEASE_MS - CLOCK_SLACK_MS);
    expect(calls.renew).toBe(0);
    expect(watch.lost).toBe(true);
  });
});
