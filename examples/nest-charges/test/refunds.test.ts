// RefundsController: `@Idempotent` on the class, its options between the module's and a method's own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import {
  appPerTest,
  assertFirst,
  assertProblem,
  assertReplayOf,
  keyMissing,
  post,
  sendTwice,
  whileInFlight,
} from './support.js';

const app = appPerTest();
const calls = () => app().provider.calls;
const refund = (key: string | undefined) =>
  post(app().url, '/refunds', { key, json: { charge: 'ch_1', amount: 400 } });
const quote = (key: string) => post(app().url, '/refunds/quotes', { key, json: { charge: 'ch_1' } });

describe('@Idempotent() on a controller class', () => {
  it('protects a method without a decorator of its own: no key, no refund', async () => {
    assertProblem(await refund(undefined), { ...keyMissing, instance: '/refunds' });
    assert.equal(calls().refund, 0);
  });

  it("replays the class's headers over the module's: Location and Provider-Request-Id", async () => {
    const key = randomUUID();
    const { first, retry } = await sendTwice(() => refund(key), 201);
    assert.equal(first.headers.get('location'), '/refunds/re_1');
    assert.match(first.headers.get('provider-request-id') ?? '', /^req_[0-9a-f]{12}$/);
    assert.equal(retry.headers.get('location'), '/refunds/re_1');
    assert.equal(retry.headers.get('provider-request-id'), first.headers.get('provider-request-id'));
    assert.equal(calls().refund, 1);
  });

  it("keeps the class's inFlight: 'raise' under a method's own options: 409 with Retry-After", async () => {
    const key = randomUUID();
    const { duplicate, finish } = await whileInFlight(app().provider, 'quote', () => quote(key));
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.headers.get('retry-after'), '1');
    assert.equal((duplicate.body as { code?: unknown }).code, 'request_in_progress');

    assertFirst(await finish(), 201);
    assert.equal(calls().quote, 1);
  });

  it("lets a method's ttl and replayHeaders win, the module's ttl still holding where nothing overrides it", async () => {
    const refundKey = randomUUID();
    const quoteKey = randomUUID();
    const firstRefund = await refund(refundKey);
    // The method's replayHeaders ([]) over the class's: the replay has no Provider-Request-Id.
    const quotes = await sendTwice(() => quote(quoteKey), 201);
    assert.notEqual(quotes.first.headers.get('provider-request-id'), null);
    assert.equal(quotes.retry.headers.get('provider-request-id'), null);
    assert.equal(calls().quote, 1);

    // Past the method's ttl ('1s'), the quote runs again; the refund, under the module's '24h', is still replayed.
    await sleep(1500);
    assertFirst(await quote(quoteKey), 201);
    assert.equal(calls().quote, 2);
    assertReplayOf(await refund(refundKey), firstRefund);
    assert.equal(calls().refund, 1);
  });
});
