// ChargesController over real HTTP, on the configured platform and store: a fresh app per test (its provider's
// calls start at 0), a new key per test.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  appPerTest,
  assertProblem,
  keyMissing,
  post,
  sendTwice,
  whileInFlight,
  type Send,
} from './support.js';

const body = { amount: 1000, currency: 'eur' };
const app = appPerTest();
const calls = () => app().provider.calls;
const charge = (key: string | undefined, json: object = body) => post(app().url, '/charges', { key, json });
/** The same request twice under a new key. */
const twice = (path: string, status: number, send: Send = {}) => {
  const key = randomUUID();
  return sendTwice(() => post(app().url, path, { key, ...send }), status);
};

describe('POST /charges: @Idempotent() on a method', () => {
  it('charges on the first call and replays status, body and Location to a retry', async () => {
    const { first, retry } = await twice('/charges', 201, { json: body });
    assert.deepEqual(first.body, { id: 'ch_1', amount: 1000, currency: 'eur' });
    assert.equal(first.headers.get('location'), '/charges/ch_1');
    assert.equal(retry.headers.get('location'), '/charges/ch_1');
    assert.equal(calls().charge, 1);
  });

  it('refuses the key with another body: 422, nothing charged', async () => {
    const key = randomUUID();
    assert.equal((await charge(key)).status, 201);

    assertProblem(await charge(key, { amount: 2000, currency: 'eur' }), {
      status: 422,
      code: 'idempotency_key_reused',
      title: 'Idempotency-Key reused with different parameters',
      detail:
        'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
      instance: '/charges',
    });
    assert.equal(calls().charge, 1);
  });

  it('requires a key: 400 idempotency_key_missing, nothing charged', async () => {
    assertProblem(await charge(undefined), { ...keyMissing, instance: '/charges' });
    assert.equal(calls().charge, 0);
  });

  it('refuses an invalid key: 400 idempotency_key_invalid, nothing charged', async () => {
    assertProblem(await charge('k'.repeat(256)), {
      status: 400,
      code: 'idempotency_key_invalid',
      title: 'Invalid Idempotency-Key',
      detail: 'The Idempotency-Key is not acceptable: key is longer than 255 characters',
      instance: '/charges',
    });
    assert.equal(calls().charge, 0);
  });

  it('answers a retry that arrives while the first call runs with 409 and Retry-After', async () => {
    const key = randomUUID();
    const { duplicate, finish } = await whileInFlight(app().provider, 'charge', () => charge(key));
    assertProblem(duplicate, {
      status: 409,
      code: 'request_in_progress',
      title: 'Request in progress',
      detail:
        'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
      instance: '/charges',
    });
    assert.equal(duplicate.headers.get('retry-after'), '1');
    assert.equal(calls().charge, 0);

    const done = await finish();
    assert.equal(done.status, 201);
    assert.deepEqual(done.body, { id: 'ch_1', amount: 1000, currency: 'eur' });
    assert.equal(calls().charge, 1);
  });

  it('takes a body nested 4000 deep (8 KB): 201 and a replay, never a 500', async () => {
    // Written by hand: the point is the depth the server parses, not what JSON.stringify would do with it.
    const raw = `{"amount":1000,"currency":"eur","metadata":${'['.repeat(4000)}${']'.repeat(4000)}}`;
    const { first } = await twice('/charges', 201, { raw });
    assert.deepEqual(first.body, { id: 'ch_1', amount: 1000, currency: 'eur' });
    assert.equal(calls().charge, 1);
  });
});

describe('POST /charges/:id/capture: a 204', () => {
  it('captures once and replays the 204 with no body', async () => {
    const { first, retry } = await twice('/charges/ch_9/capture', 204);
    assert.equal(first.bytes.length, 0);
    assert.equal(retry.status, 204);
    assert.equal(calls().capture, 1);
  });
});

describe('POST /charges/statements: a 1 MiB body', () => {
  it('replays the body byte for byte, with its content type', async () => {
    // The provider's export is random: equal bytes can only come from the stored record.
    const { first } = await twice('/charges/statements', 201);
    assert.ok(first.bytes.length > 1024 * 1024, `${first.bytes.length} bytes`);
    assert.match(first.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(calls().statement, 1);
  });
});
