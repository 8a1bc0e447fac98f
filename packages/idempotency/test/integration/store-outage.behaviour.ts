import { afterEach, describe, expect, it } from '@jest/globals';
import { IdempotencyErrorCode } from '../../src/index.js';
import { countingAction, sleep, type StoreWorld } from './support.js';

/** A store the suite can break: a world whose calls give up after `commandTimeoutMs`, and the server's controls. */
export interface OutageBackend {
  /** A world whose store gives up after `commandTimeoutMs`, once the store answers again after an earlier test. */
  world(commandTimeoutMs: number): StoreWorld | Promise<StoreWorld>;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** Awaits `promise`, returning its value or error and how long it took. */
export async function timed<T>(promise: Promise<T>): Promise<{ result: T | unknown; ms: number }> {
  const started = Date.now();
  const result = await promise.catch((e: unknown) => e);
  return { result, ms: Date.now() - started };
}

async function waitForCharge(call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await call().catch((e: unknown) => e);
    if (!(result instanceof Error)) return;
    if (Date.now() > deadline) throw result;
    await sleep(100);
  }
}

/**
 * The coordinator with its store stopped or paused (SIGSTOP): every call stays bounded by the command timeout,
 * fail-closed never runs the action, fail-open runs it unprotected, and the key charges once after recovery.
 */
export function describeStoreOutage(name: string, backend: () => OutageBackend): void {
  let w: StoreWorld | undefined;
  afterEach(async () => {
    backend().resume();
    await w?.close();
    w = undefined;
  });

  describe.each([
    ['stopped', () => backend().stop(), () => backend().start()],
    [
      'paused (SIGSTOP: connections stay open, nothing answers)',
      async () => backend().pause(),
      async () => backend().resume(),
    ],
  ])(`${name} %s`, (_, breakStore, healStore) => {
    it('fail-closed rejects within the command timeout and never runs the action; after recovery the key charges once', async () => {
      const world = (w = await backend().world(300));
      const coordinator = world.coordinator({ onStoreUnavailable: 'fail-closed', inFlight: 'raise' });
      const action = countingAction();
      await breakStore();

      const first = await timed(coordinator.coordinate(world.request('k-down'), action.run));
      const second = await timed(coordinator.coordinate(world.request('k-down'), action.run));

      for (const call of [first, second]) {
        expect(call.result).toMatchObject({ code: IdempotencyErrorCode.StoreUnavailable, key: 'k-down' });
        expect(call.ms).toBeLessThan(300 + 700);
      }
      expect(action.executions).toBe(0);
      expect(world.events.filter((e) => e.type === 'store_error').length).toBeGreaterThanOrEqual(2);

      await healStore();
      // A claim that reached the store before it froze (or that a client queued) may be granted late; the store
      // gives such a grant back at once, so the key is not blocked for a lease.
      await waitForCharge(() => coordinator.coordinate(world.request('k-down'), action.run));
      await coordinator.coordinate(world.request('k-down'), action.run);
      expect(action.executions).toBe(1);
    });

    it('fail-open runs the action unprotected: two calls, two effects', async () => {
      const world = (w = await backend().world(300));
      const coordinator = world.coordinator({ onStoreUnavailable: 'fail-open', inFlight: 'raise' });
      const action = countingAction();
      await breakStore();

      const first = await coordinator.coordinateWithOutcome(world.request('k-open'), action.run);
      const second = await coordinator.coordinateWithOutcome(world.request('k-open'), action.run);

      expect(action.executions).toBe(2);
      expect([first.outcome, second.outcome]).toEqual(['unprotected', 'unprotected']);
      expect(world.events.filter((e) => e.type === 'fail_open')).toHaveLength(2);
      await healStore();
    });
  });

  it(`${name}: fail-open never overwrites a record: the unprotected result is stored only where none exists`, async () => {
    const world = (w = await backend().world(1_000));
    const coordinator = world.coordinator({ inFlight: 'raise' });
    const action = countingAction();
    const stored = await coordinator.coordinate(world.request('k-open-2'), action.run);

    expect(
      await world.store.storeIfAbsent({
        operation: 'payment.charge.t1',
        key: 'k-open-2',
        fingerprint: 'fp-a',
        payload: JSON.stringify({ id: 'ch_unprotected', amount: 1, currency: 'EUR' }),
        ttlMs: 60_000,
      }),
    ).toBe(false);
    await expect(coordinator.coordinate(world.request('k-open-2'), action.run)).resolves.toEqual(stored);
  });
}
