import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, waitFor } from '@retry-safe/testing';
import { RedisIdempotencyStore } from '../../../src/redis/index.js';
import { suiteRedis } from '../support.js';
import type { GraphqlEffects } from './charges.resolver.js';
import { CHARGE, GRAPHQL_DRIVERS, PLATFORM_OF, REFUND, startGraphqlApp } from './graphql-apps.js';

const redis = suiteRedis(() => startRedis());

/** A GraphQL error of an idempotency error, whole: the problem's fields as `extensions`. */
const gqlError = (
  field: 'charge' | 'refund',
  column: number,
  extensions: { status: number; code: string; message: string; retryAfter?: number },
) => ({
  data: null,
  errors: [{ message: extensions.message, locations: [{ line: 1, column }], path: [field], extensions }],
});
const REUSED = {
  status: 422,
  code: 'idempotency_key_reused',
  message:
    'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
};
const MISSING = { status: 400, code: 'idempotency_key_missing', message: 'An idempotency key is required' };
const IN_PROGRESS = {
  status: 409,
  code: 'request_in_progress',
  message:
    'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
  retryAfter: 1,
};
// Where each operation's field starts in its query text.
const CHARGE_COLUMN = CHARGE.indexOf('charge(') + 1;
const REFUND_COLUMN = REFUND.indexOf('refund(') + 1;

describe.each(GRAPHQL_DRIVERS)('@Idempotent() on GraphQL mutations over real HTTP, %s driver', (driver) => {
  let started: Awaited<ReturnType<typeof startGraphqlApp>>;
  let effects: GraphqlEffects;
  beforeAll(async () => {
    const store = new RedisIdempotencyStore(redis.client, { keyPrefix: `nest-graphql:${randomUUID()}:` });
    started = await startGraphqlApp(driver, { store });
    effects = started.effects;
  });
  afterAll(async () => {
    await started?.app.close();
  });
  const post = (query: string, variables: object, key?: string) => started.post(query, variables, key);

  it(`runs on ${PLATFORM_OF[driver]}`, () => {
    expect(started.app.getHttpAdapter().getType()).toBe(PLATFORM_OF[driver]);
  });

  it('the key from an argument (input.requestId): one effect, the same data both times', async () => {
    const before = effects.charges;
    const input = { requestId: `req-${randomUUID()}`, amount: 5 };
    const first = await post(CHARGE, { input });
    const again = await post(CHARGE, { input });
    const data = { data: { charge: { id: `ch_${before + 1}`, amount: 5, effect: before + 1 } } };
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.body).toEqual(data);
    expect(again.body).toEqual(data);
    expect(effects.charges - before).toBe(1);
  });

  it('the key from the HTTP Idempotency-Key header: one effect, the same data both times', async () => {
    const before = effects.charges;
    const key = `hdr-${randomUUID()}`;
    const first = await post(REFUND, { amount: 2 }, key);
    const again = await post(REFUND, { amount: 2 }, key);
    const data = { data: { refund: { id: `ch_${before + 1}`, amount: -2, effect: before + 1 } } };
    expect(first.body).toEqual(data);
    expect(again.body).toEqual(data);
    expect(effects.charges - before).toBe(1);
  });

  it('the same key with another input: a GraphQL error with extensions.code idempotency_key_reused', async () => {
    const requestId = `req-${randomUUID()}`;
    const key = `hdr-${randomUUID()}`;
    await post(CHARGE, { input: { requestId, amount: 5 } });
    await post(REFUND, { amount: 2 }, key);
    const before = effects.charges;
    const reusedArg = await post(CHARGE, { input: { requestId, amount: 6 } });
    const reusedHeader = await post(REFUND, { amount: 3 }, key);
    expect([reusedArg.status, reusedHeader.status]).toEqual([200, 200]);
    expect(reusedArg.body).toEqual(gqlError('charge', CHARGE_COLUMN, REUSED));
    expect(reusedHeader.body).toEqual(gqlError('refund', REFUND_COLUMN, REUSED));
    expect(effects.charges).toBe(before);
  });

  it('no key: a GraphQL error with extensions.code idempotency_key_missing; nothing runs', async () => {
    const before = effects.charges;
    const noArg = await post(CHARGE, { input: { amount: 6 } });
    const noHeader = await post(REFUND, { amount: 2 });
    expect(noArg.body).toEqual(gqlError('charge', CHARGE_COLUMN, MISSING));
    expect(noHeader.body).toEqual(gqlError('refund', REFUND_COLUMN, MISSING));
    expect(effects.charges).toBe(before);
  });

  it('in flight with raise: request_in_progress with extensions.retryAfter 1; one effect', async () => {
    let release: () => void = () => {};
    effects.hold = new Promise((resolve) => (release = resolve));
    const before = effects.charges;
    const input = { requestId: `req-${randomUUID()}`, amount: 8 };
    const first = post(CHARGE, { input }).then((res) => res);
    try {
      await waitFor('the first to run', async () => {
        if (effects.charges === before) throw new Error('not yet');
      });
      const second = await post(CHARGE, { input });
      expect(second.body).toEqual(gqlError('charge', CHARGE_COLUMN, IN_PROGRESS));
    } finally {
      release();
      effects.hold = undefined;
    }
    const data = { data: { charge: { id: `ch_${before + 1}`, amount: 8, effect: before + 1 } } };
    expect((await first).body).toEqual(data);
    expect((await post(CHARGE, { input })).body).toEqual(data);
    expect(effects.charges - before).toBe(1);
  });
});
