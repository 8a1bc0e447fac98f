import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  IDEMPOTENCY_DEFAULTS,
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  InvalidIdempotencyOptionsError,
  jsonCodec,
  makeIdempotent,
  makeIdempotentInTransaction,
  makeIdempotentOptimistically,
  makeIdempotentWithOutcome,
  type IdempotentCallSettings,
  type IdempotentFunctionOptions,
  type SqlTransaction,
} from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/memory/index.js';

// The option checks of makeIdempotent (once, when the function is made) and of its calls (what the functions
// return), on the in-memory store: a refused call runs nothing and writes nothing.
let store: MemoryIdempotencyStore;
let coordinator: IdempotencyCoordinator;
let executions: number;
const action = async (_context: unknown, id: string) => `done ${id} ${++executions}`;
const valid: IdempotentFunctionOptions<[string], string> = { operation: 'op', key: (id) => id };

beforeEach(() => {
  // A clock that stands still: a record's remaining lifetime is its TTL to the millisecond.
  store = new MemoryIdempotencyStore({ sweepIntervalMs: 0, now: () => 1_000_000 });
  coordinator = new IdempotencyCoordinator(store);
  executions = 0;
});
afterEach(() => store.close());

/** The error `make` throws, at once (not from a call). */
function thrownBy(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('makeIdempotent: options checked once, when made', () => {
  it.each<[string, Partial<IdempotentFunctionOptions<[string], string>>, RegExp]>([
    ['an empty operation', { operation: '' }, /operation option: operation is empty/],
    ['an operation with a colon', { operation: 'a:b' }, /operation option: operation contains ':'/],
    ['an operation of 101 characters', { operation: 'o'.repeat(101) }, /operation option: .*longer than 100/],
    [
      'an operation that is neither a string nor a function',
      { operation: 42 as never },
      /operation must be a function/,
    ],
    ['no key', { key: undefined as never }, /key must be a function, got undefined/],
    ['a key that is a string', { key: 'k' as never }, /key must be a function, got "k"/],
    ['a ttl under 1 s', { ttl: 999 }, /ttl must be an integer between 1000 and 2592000000, got 999/],
    ['a ttl over 30 days', { ttl: '31d' }, /ttl must be an integer between 1000 and 2592000000/],
    ['a ttl that is no Duration', { ttl: '1h30m' as never }, /ttl must be a whole number of milliseconds/],
    ['a negative ttl', { ttl: -1 }, /ttl must be a whole number of milliseconds/],
    ['a codec without decode', { codec: { encode: String } as never }, /codec must have encode and decode/],
    [
      'a fingerprint that is not a function',
      { fingerprint: 'fp' as never },
      /fingerprint must be a function/,
    ],
    ['settings that are an object', { settings: { enabled: false } as never }, /settings must be a function/],
  ])('refuses %s, naming the option', (_, override, message) => {
    const runInTransaction = async <R>(work: (transaction: SqlTransaction) => Promise<R>) =>
      work({ query: async () => ({ rows: [] }) });
    const optimistic = (c: IdempotencyCoordinator, a: typeof action, o: typeof valid) =>
      makeIdempotentOptimistically(c, a, { ...o, runInTransaction });
    for (const make of [makeIdempotent, makeIdempotentWithOutcome, optimistic]) {
      const error = thrownBy(() => make(coordinator, action, { ...valid, ...override }));
      expect(error).toBeInstanceOf(InvalidIdempotencyOptionsError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('refuses a missing action, options or coordinator, and a transactional form without transaction', () => {
    expect(thrownBy(() => makeIdempotent(coordinator, 'run' as never, valid))).toMatchObject({
      code: IdempotencyErrorCode.InvalidOptions,
      message: expect.stringMatching(/action must be a function/),
    });
    expect(thrownBy(() => makeIdempotent(coordinator, action, null as never))).toMatchObject({
      message: expect.stringMatching(/options must be an object, got null/),
    });
    expect(thrownBy(() => makeIdempotent({} as never, action, valid))).toMatchObject({
      message: expect.stringMatching(/coordinator must be an IdempotencyCoordinator/),
    });
    expect(thrownBy(() => makeIdempotentInTransaction(coordinator, action, valid as never))).toMatchObject({
      message: expect.stringMatching(/transaction must be a function/),
    });
    expect(thrownBy(() => makeIdempotentOptimistically(coordinator, action, valid as never))).toMatchObject({
      code: IdempotencyErrorCode.InvalidOptions,
      message: 'runInTransaction must be a function, got undefined',
    });
  });

  it.each<[string, IdempotentFunctionOptions<[string], string>['ttl'], number]>([
    ['the default', undefined, IDEMPOTENCY_DEFAULTS.ttlMs],
    ['a number of ms', 60_000, 60_000],
    ['a string with a unit', '1.5h', 5_400_000],
  ])("takes %s ttl as the record's lifetime", async (_, ttl, ms) => {
    expect(IDEMPOTENCY_DEFAULTS.ttlMs).toBe(24 * 60 * 60 * 1_000);
    const run = makeIdempotent(coordinator, action, { ...valid, ...(ttl === undefined ? {} : { ttl }) });
    await run('k');
    expect(store.entries()).toEqual([expect.objectContaining({ id: 'op:k', remainingMs: ms })]);
  });
});

describe('makeIdempotent: what the functions return, checked per call', () => {
  const refusedWith = async (promise: Promise<unknown>, code: string, message: RegExp) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(executions).toBe(0);
    expect(store.entries()).toEqual([]);
  };

  it('a key function that returns a non-string: InvalidIdempotencyKeyError', async () => {
    const run = makeIdempotent(coordinator, action, { ...valid, key: () => 42 as never });
    await refusedWith(
      run('k'),
      IdempotencyErrorCode.InvalidKey,
      /key function returned a number, not a string/,
    );
  });

  it('an operation function that returns a non-string or a bad operation: InvalidIdempotencyKeyError', async () => {
    const numeric = makeIdempotent(coordinator, action, { ...valid, operation: () => 7 as never });
    await refusedWith(numeric(''), IdempotencyErrorCode.InvalidKey, /operation function returned a number/);
    const colon = makeIdempotent(coordinator, action, { ...valid, operation: (id) => `op:${id}` });
    await refusedWith(colon('k'), IdempotencyErrorCode.InvalidKey, /operation contains ':'/);
  });

  it.each<[string, unknown, RegExp]>([
    ['a lease under 10 ms', { leaseMs: 5 }, /leaseMs must be an integer between 10/],
    ['a NaN wait timeout', { waitTimeoutMs: NaN }, /waitTimeoutMs must be an integer/],
    ['an unknown in-flight mode', { inFlight: 'queue' }, /inFlight must be one of wait, raise, run/],
    ['an unknown store-down policy', { onStoreUnavailable: 'retry' }, /onStoreUnavailable must be one of/],
    ['renewLease that is not a boolean', { renewLease: 'yes' }, /renewLease must be one of true, false/],
    ['enabled that is not a boolean', { enabled: 'false' }, /enabled must be one of true, false, got false/],
    ['a ttl under 1 s', { ttl: '500ms' }, /ttl must be an integer between 1000/],
    ['a ttl that is no Duration', { ttl: '5 s' }, /ttl must be a whole number/],
    ['settings that are not an object', 'wait', /settings must return an object, got "wait"/],
  ])('settings with %s: InvalidIdempotencyOptionsError, nothing runs', async (_, settings, message) => {
    const run = makeIdempotent(coordinator, action, {
      ...valid,
      settings: () => settings as IdempotentCallSettings,
    });
    await refusedWith(run('k'), IdempotencyErrorCode.InvalidOptions, message);
  });

  it('a call switched off is validated all the same: a bad key is refused, a good one runs unprotected', async () => {
    const run = makeIdempotentWithOutcome(coordinator, action, {
      ...valid,
      settings: () => ({ enabled: false }),
    });
    await refusedWith(run('a:b'), IdempotencyErrorCode.InvalidKey, /key contains ':'/);
    await expect(run('k')).resolves.toEqual({ value: 'done k 1', outcome: 'unprotected', fencingToken: 0 });
    expect(store.entries()).toEqual([]);
  });

  it('coordinate refuses a request whose enabled is not a boolean, before the action', async () => {
    const request = { operation: 'op', key: 'k', ttlMs: 60_000, codec: jsonCodec<string>() };
    await refusedWith(
      coordinator.coordinate({ ...request, enabled: 0 as never }, () => action(undefined, 'k')),
      IdempotencyErrorCode.InvalidOptions,
      /enabled must be one of true, false, got 0/,
    );
  });

  it('the transactional form needs a transactional store, switched on or off', async () => {
    const transaction: SqlTransaction = { query: async () => ({ rows: [] }) };
    for (const enabled of [true, false]) {
      const run = makeIdempotentInTransaction(coordinator, action, {
        ...valid,
        transaction: () => transaction,
        settings: () => ({ enabled }),
      });
      await refusedWith(
        run('k'),
        IdempotencyErrorCode.InvalidOptions,
        /coordinateInTransaction needs a store that supports transactions/,
      );
      const optimistic = makeIdempotentOptimistically(coordinator, action, {
        ...valid,
        runInTransaction: (work) => work(transaction),
        settings: () => ({ enabled }),
      });
      await refusedWith(
        optimistic('k'),
        IdempotencyErrorCode.InvalidOptions,
        /coordinateOptimistically needs a store that supports transactions/,
      );
    }
    expect(executions).toBe(0);
  });
});
