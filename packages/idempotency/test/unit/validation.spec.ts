import { describe, expect, it } from '@jest/globals';
import {
  IdempotencyCoordinator,
  IdempotencyErrorCode,
  idempotencyKeyProblem,
  jsonCodec,
  type IdempotencyStore,
} from '../../src/index.js';

/** A store that must never be reached: every call fails the test. */
const untouchable: IdempotencyStore = {
  claim: () => Promise.reject(new Error('claim must not be called')),
  complete: () => Promise.reject(new Error('complete must not be called')),
  renew: () => Promise.reject(new Error('renew must not be called')),
  release: () => Promise.reject(new Error('release must not be called')),
  storeIfAbsent: () => Promise.reject(new Error('storeIfAbsent must not be called')),
};

describe('idempotencyKeyProblem', () => {
  it.each([
    ['', 'key is empty'],
    ['   ', 'key is blank'],
    ['order:42', "key contains ':'"],
    ['a\u0000b', 'key contains control characters'],
    ['a\u007fb', 'key contains control characters'],
    ['k'.repeat(256), 'key is longer than 255 characters'],
  ])('%j -> %s', (key, problem) => {
    expect(idempotencyKeyProblem(key)).toBe(problem);
  });

  it.each(['k'.repeat(255), '8e03978e-40d5-43e8-bc93-6894a57f9324', 'ünïcödé', 'a b'])(
    'accepts %j',
    (key) => {
      expect(idempotencyKeyProblem(key)).toBeUndefined();
    },
  );
});

describe('coordinator validation', () => {
  const coordinator = new IdempotencyCoordinator(untouchable);
  const base = { operation: 'op', key: 'k', ttlMs: 60_000, codec: jsonCodec<number>() };
  let runs = 0;
  const action = async () => ++runs;

  it.each([
    [{ operation: '' }, IdempotencyErrorCode.InvalidKey],
    [{ operation: 'a:b' }, IdempotencyErrorCode.InvalidKey],
    [{ operation: 'o'.repeat(101) }, IdempotencyErrorCode.InvalidKey],
    [{ key: 'order:42' }, IdempotencyErrorCode.InvalidKey],
    [{ ttlMs: 999 }, IdempotencyErrorCode.InvalidOptions],
    [{ ttlMs: 30 * 86_400_000 + 1 }, IdempotencyErrorCode.InvalidOptions],
    [{ leaseMs: 5 }, IdempotencyErrorCode.InvalidOptions],
    [{ inFlight: 'sometimes' as never }, IdempotencyErrorCode.InvalidOptions],
    // Per-call options: a NaN wait timeout used to make the wait loop claim about once a millisecond forever.
    [{ waitTimeoutMs: NaN }, IdempotencyErrorCode.InvalidOptions],
    [{ waitTimeoutMs: '100' as never }, IdempotencyErrorCode.InvalidOptions],
    [{ waitTimeoutMs: -1 }, IdempotencyErrorCode.InvalidOptions],
    [{ waitTimeoutMs: 1.5 }, IdempotencyErrorCode.InvalidOptions],
    [{ renewLease: 'yes' as never }, IdempotencyErrorCode.InvalidOptions],
    [{ onStoreUnavailable: 'maybe' as never }, IdempotencyErrorCode.InvalidOptions],
    [{ leaseMs: NaN }, IdempotencyErrorCode.InvalidOptions],
  ])('%j is refused with %s before the store is touched', async (override, code) => {
    await expect(coordinator.coordinate({ ...base, ...override }, action)).rejects.toMatchObject({ code });
    expect(runs).toBe(0);
  });

  it('refuses bad options at construction', () => {
    expect(() => new IdempotencyCoordinator(untouchable, { leaseMs: 0 })).toThrow(/leaseMs/);
    expect(() => new IdempotencyCoordinator(untouchable, { onStoreUnavailable: 'maybe' as never })).toThrow(
      /onStoreUnavailable/,
    );
  });
});

describe('lone surrogates', () => {
  it.each(['k\uD800', 'k\uDBFF', '\uDC00k', 'a\uDE00\uD83Db'])(
    '%j is refused: it is not well-formed UTF-16',
    (key) => {
      expect(idempotencyKeyProblem(key)).toBe('key is not well-formed Unicode (a lone surrogate)');
    },
  );

  it.each(['k\uFFFD', 'k\uD83D\uDE00'])('%j (well-formed) is accepted', (key) => {
    expect(idempotencyKeyProblem(key)).toBeUndefined();
  });

  it('applies to the operation too', async () => {
    const coordinator = new IdempotencyCoordinator(untouchable);
    await expect(
      coordinator.coordinate(
        { operation: 'op\uD800', key: 'k', ttlMs: 60_000, codec: jsonCodec() },
        async () => 1,
      ),
    ).rejects.toMatchObject({ code: IdempotencyErrorCode.InvalidKey });
  });
});

describe('per-call options get the constructor checks, before the store is touched', () => {
  it('refuses a non-boolean renewLease at construction too', () => {
    expect(() => new IdempotencyCoordinator(untouchable, { renewLease: 'no' as never })).toThrow(
      /renewLease/,
    );
  });
});
