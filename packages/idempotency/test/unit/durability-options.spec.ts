import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { IdempotencyErrorCode } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';

// Never connects (lazyConnect and no command): the options are checked in the constructor.
const client = new Redis({ lazyConnect: true });
afterAll(() => client.disconnect());

describe('RedisIdempotencyStore durability option', () => {
  it.each([
    ['no replica', { replicas: 0, timeoutMs: 100 }],
    ['a fractional replica count', { replicas: 1.5, timeoutMs: 100 }],
    ['WAIT 0 (blocks forever)', { replicas: 1, timeoutMs: 0 }],
    ['a timeout as long as the command timeout', { replicas: 1, timeoutMs: 1_000 }],
    ['a timeout that is not a number', { replicas: 1, timeoutMs: Number.NaN }],
  ])('refuses %s with IDEMPOTENCY_INVALID_OPTIONS', (_, durability) => {
    expect(() => new RedisIdempotencyStore(client, { commandTimeoutMs: 1_000, durability })).toThrow(
      expect.objectContaining({ code: IdempotencyErrorCode.InvalidOptions }),
    );
  });

  it('accepts replicas and a timeout below the command timeout, and keeps its own copy', () => {
    const durability = { replicas: 1, timeoutMs: 100 };
    const store = new RedisIdempotencyStore(client, { commandTimeoutMs: 1_000, durability });
    durability.replicas = 0;
    expect(store.durability).toEqual({ replicas: 1, timeoutMs: 100 });
  });

  it('is off by default', () => {
    expect(new RedisIdempotencyStore(client).durability).toBeUndefined();
  });
});
