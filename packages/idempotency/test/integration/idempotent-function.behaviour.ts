import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor, whenAborted } from '@retry-safe/testing';
import {
  IdempotencyChannel,
  IdempotencyErrorCode,
  makeIdempotent,
  makeIdempotentWithOutcome,
  type IdempotencyContext,
  type IdempotentCallSettings,
} from '../../src/index.js';
import { countingStore, type BehaviourBackend, type Charge, type StoreWorld } from './support.js';

/** What a charge function is called with: the tenant scopes the key, the amount is its fingerprint. */
interface ChargeCommand {
  tenant: string;
  requestId: string;
  amount: number;
}

const command = (requestId: string, amount = 1000): ChargeCommand => ({ tenant: 't1', requestId, amount });

/** What the action saw of its context (the signal as whether it had aborted when the action started). */
type SeenContext = Omit<IdempotencyContext, 'signal'> & { aborted: boolean; isSignal: boolean };

/**
 * A charge function made with `makeIdempotentWithOutcome` over `w`'s store: it counts its executions (the real
 * effect), records every context it is handed, and its per-call settings are whatever `settings.current` is now.
 */
function chargeFunction(w: StoreWorld, over = w.store) {
  const settings: { current: IdempotentCallSettings } = { current: {} };
  const seen: SeenContext[] = [];
  const charge = makeIdempotentWithOutcome(
    w.coordinator({}, over),
    async (context, cmd: ChargeCommand): Promise<Charge> => {
      const { operation, key, fencingToken, signal } = context;
      seen.push({
        operation,
        key,
        fencingToken,
        protected: context.protected,
        aborted: signal.aborted,
        isSignal: signal instanceof AbortSignal,
      });
      return { id: `ch_${seen.length}`, amount: cmd.amount, currency: 'EUR' };
    },
    {
      operation: (cmd) => `payment.charge.${cmd.tenant}`,
      key: (cmd) => cmd.requestId,
      fingerprint: (cmd) => ({ amount: cmd.amount }),
      settings: () => settings.current,
    },
  );
  return { charge, seen, settings };
}

/**
 * `makeIdempotent` on a real store: the function form of the coordinator, with settings read on every call, the
 * context handed to the action, and the off switch.
 */
export function describeIdempotentFunction(name: string, backend: BehaviourBackend): void {
  describe(`makeIdempotent on ${name}`, () => {
    let w: StoreWorld;
    beforeEach(async () => {
      w = await backend.world();
    });
    afterEach(async () => {
      await w.close();
    });

    it('hands the action its IdempotencyContext and replays the stored result to a repeat', async () => {
      const { charge, seen } = chargeFunction(w);
      const first = await charge(command('k-ctx'));
      const again = await charge(command('k-ctx'));

      expect(first).toEqual({
        value: { id: 'ch_1', amount: 1000, currency: 'EUR' },
        outcome: 'executed',
        fencingToken: expect.any(Number),
      });
      expect(first.fencingToken).toBeGreaterThan(0);
      expect(seen).toEqual([
        {
          operation: 'payment.charge.t1',
          key: 'k-ctx',
          fencingToken: first.fencingToken,
          protected: true,
          aborted: false,
          isSignal: true,
        },
      ]);
      expect(again).toEqual({ ...first, outcome: 'replayed' });
      expect(await w.records()).toEqual(['payment.charge.t1:k-ctx']);
      // Another amount under the same key is refused; the operation comes from the arguments.
      await expect(charge(command('k-ctx', 2000))).rejects.toMatchObject({
        code: IdempotencyErrorCode.KeyReuse,
      });
      await charge({ ...command('k-ctx'), tenant: 't2' });
      expect(seen.map((s) => s.operation)).toEqual(['payment.charge.t1', 'payment.charge.t2']);
    });

    it('makeIdempotent returns the value alone, and the default TTL is 24 hours', async () => {
      let executions = 0;
      const send = makeIdempotent(
        w.coordinator(),
        async ({ key }, to: string) => `${key}:${to}:${++executions}`,
        { operation: 'email.send', key: (to) => `welcome-${to}` },
      );
      expect(await send('ada')).toBe('welcome-ada:ada:1');
      expect(await send('ada')).toBe('welcome-ada:ada:1');
      expect(executions).toBe(1);
      const remaining = await w.remainingTtlMs('email.send', 'welcome-ada');
      expect(remaining).toBeGreaterThan(24 * 3_600_000 - 60_000);
      expect(remaining).toBeLessThanOrEqual(24 * 3_600_000);
    });

    it('reads the settings on every call: raise, then wait with a short timeout, then wait for the owner', async () => {
      const { settings, charge, seen } = chargeFunction(w);
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => (release = r));
      let ownerRuns = 0;
      const owner = makeIdempotentWithOutcome(
        w.coordinator(),
        async (_context, cmd: ChargeCommand): Promise<Charge> => {
          ownerRuns += 1;
          await gate;
          return { id: 'ch_owner', amount: cmd.amount, currency: 'EUR' };
        },
        {
          operation: 'payment.charge.t1',
          key: (cmd) => cmd.requestId,
          fingerprint: (cmd) => ({ amount: cmd.amount }),
        },
      )(command('k-modes'));
      await waitFor('the owner to run', async () => expect(ownerRuns).toBe(1));

      // The coordinator waits (its default) for up to 30 s: each answer below is the call's own settings.
      settings.current = { inFlight: 'raise' };
      await expect(charge(command('k-modes'))).rejects.toMatchObject({
        code: IdempotencyErrorCode.InProgress,
      });
      settings.current = { inFlight: 'wait', waitTimeoutMs: 200 };
      const started = Date.now();
      await expect(charge(command('k-modes'))).rejects.toMatchObject({
        code: IdempotencyErrorCode.InProgress,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(5_000);

      settings.current = { inFlight: 'wait', waitTimeoutMs: 10_000 };
      const waiter = charge(command('k-modes'));
      release();
      const ownerResult = await owner;
      await expect(waiter).resolves.toEqual({ ...ownerResult, outcome: 'replayed' });
      expect(ownerResult.value.id).toBe('ch_owner');
      expect(ownerRuns).toBe(1);
      expect(seen).toEqual([]);
    });

    it('a per-call ttl applies to that call only', async () => {
      const { settings, charge } = chargeFunction(w);
      settings.current = { ttl: '2s' };
      await charge(command('k-ttl-short'));
      settings.current = {};
      await charge(command('k-ttl-default'));

      const short = await w.remainingTtlMs('payment.charge.t1', 'k-ttl-short');
      expect(short).toBeGreaterThan(1_000);
      expect(short).toBeLessThanOrEqual(2_000);
      expect(await w.remainingTtlMs('payment.charge.t1', 'k-ttl-default')).toBeGreaterThan(23 * 3_600_000);
    });

    it('the fencing token grows across a takeover: an owner whose per-call lease expired, then a second caller', async () => {
      const { settings, charge, seen } = chargeFunction(w);
      let finishStale: () => void = () => {};
      const staleMayFinish = new Promise<void>((r) => (finishStale = r));
      let staleAborted = false;
      let staleToken = 0;
      const stale = makeIdempotentWithOutcome(
        w.coordinator(),
        async ({ signal, fencingToken }, cmd: ChargeCommand): Promise<Charge> => {
          staleToken = fencingToken;
          await whenAborted(signal);
          staleAborted = true;
          await staleMayFinish;
          return { id: `ch_stale_${fencingToken}`, amount: cmd.amount, currency: 'EUR' };
        },
        {
          operation: 'payment.charge.t1',
          key: (cmd) => cmd.requestId,
          fingerprint: (cmd) => ({ amount: cmd.amount }),
          // The coordinator's lease is 30 s: only this call's 200 ms lease lets anyone take over.
          settings: () => ({ leaseMs: 200, renewLease: false }),
        },
      )(command('k-takeover')).catch((e: unknown) => e);
      await waitFor('the stale owner to lose its lease', async () => expect(staleAborted).toBe(true));

      settings.current = { inFlight: 'wait', waitTimeoutMs: 5_000 };
      const second = await charge(command('k-takeover'));
      finishStale();
      const staleError = await stale;

      expect(second).toMatchObject({ outcome: 'executed', value: { id: 'ch_1' } });
      expect(seen[0]).toMatchObject({ fencingToken: second.fencingToken, protected: true });
      expect(staleError).toMatchObject({
        code: IdempotencyErrorCode.LeaseLost,
        result: { id: `ch_stale_${staleToken}` },
      });
      expect(staleToken).toBeGreaterThan(0);
      expect(second.fencingToken).toBeGreaterThan(staleToken);
      await expect(charge(command('k-takeover'))).resolves.toEqual({ ...second, outcome: 'replayed' });
    });

    it('the off switch: enabled false runs the action every time, unprotected, and touches nothing; true protects again', async () => {
      const store = countingStore(w.store);
      const { settings, charge, seen } = chargeFunction(w, store);
      settings.current = { enabled: false };
      const off = [await charge(command('k-off')), await charge(command('k-off'))];

      expect(off).toEqual([
        { value: { id: 'ch_1', amount: 1000, currency: 'EUR' }, outcome: 'unprotected', fencingToken: 0 },
        { value: { id: 'ch_2', amount: 1000, currency: 'EUR' }, outcome: 'unprotected', fencingToken: 0 },
      ]);
      expect(seen.map((s) => [s.protected, s.fencingToken, s.aborted, s.key])).toEqual([
        [false, 0, false, 'k-off'],
        [false, 0, false, 'k-off'],
      ]);
      expect(store.calls).toEqual({});
      expect(await w.records()).toEqual([]);
      expect(w.events).toEqual([]);

      settings.current = { enabled: true };
      const on = [await charge(command('k-off')), await charge(command('k-off'))];
      expect(on.map((r) => r.outcome)).toEqual(['executed', 'replayed']);
      expect(on[1]!.value).toEqual({ id: 'ch_3', amount: 1000, currency: 'EUR' });
      expect(seen).toHaveLength(3);
      expect(await w.records()).toEqual(['payment.charge.t1:k-off']);
    });

    it('coordinateWithOutcome with enabled false publishes nothing and still refuses a bad key', async () => {
      const published: unknown[] = [];
      const listener = (message: unknown) => published.push(message);
      const channels = Object.values(IdempotencyChannel);
      for (const channel of channels) subscribe(channel, listener);
      try {
        const store = countingStore(w.store);
        const coordinator = w.coordinator({}, store);
        let executions = 0;
        const run = async () => ({ id: `ch_${++executions}`, amount: 1, currency: 'EUR' });
        const result = await coordinator.coordinateWithOutcome(w.request('k-off', { enabled: false }), run);

        expect(result).toEqual({
          value: { id: 'ch_1', amount: 1, currency: 'EUR' },
          outcome: 'unprotected',
          fencingToken: 0,
        });
        await expect(
          coordinator.coordinate(w.request('bad:key', { enabled: false }), run),
        ).rejects.toMatchObject({ code: IdempotencyErrorCode.InvalidKey });
        expect(executions).toBe(1);
        expect(published).toEqual([]);
        expect(store.calls).toEqual({});
        // The same call switched on publishes (so the listener above would have heard a message).
        await coordinator.coordinate(w.request('k-on'), run);
        expect(published.length).toBeGreaterThan(0);
      } finally {
        for (const channel of channels) unsubscribe(channel, listener);
      }
    });
  });
}
