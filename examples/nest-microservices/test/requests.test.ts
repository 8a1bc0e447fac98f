// Request-response (`@MessagePattern`) over the configured broker: a request sent again with its key gets the same
// reply and charges once, with the key in a transport header or in the payload; the errors a caller receives.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it, mock } from 'node:test';
import { Patterns, servicePerTest, withKey, type RunningService } from './support.js';

const service = servicePerTest();

/** What a caller receives for each refusal: the HTTP problem's status and code, its detail as the message. */
const REUSED = {
  status: 422,
  code: 'idempotency_key_reused',
  message:
    'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
};
const IN_PROGRESS = {
  status: 409,
  code: 'request_in_progress',
  message:
    'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
  retryAfter: 1,
};
const MISSING = { status: 400, code: 'idempotency_key_missing', message: 'An idempotency key is required' };

/** A charge, its key in the `Idempotency-Key` transport header (none sent when `key` is undefined). */
const charge = (key: string | undefined, amount = 1000) => {
  const body = { amount, currency: 'eur' };
  return service().send(Patterns.createCharge, key === undefined ? body : withKey(body, key));
};
/** A refund, its key in the payload's `meta.requestId`. */
const refund = (requestId: string | undefined, amount = 400) =>
  service().send(Patterns.refundCharge, { charge: 'ch_1', amount, meta: { requestId } });

it('a request sent twice, its key in a transport header: one charge, the same reply', async () => {
  const key = randomUUID();
  const first = await charge(key);
  assert.deepEqual(first, { reply: { id: 'ch_1', kind: 'charge', amount: 1000 } });
  assert.deepEqual(await charge(key), first);
  assert.equal(service().provider.calls.charge, 1);

  // Another key is another charge.
  assert.deepEqual(await charge(randomUUID()), { reply: { id: 'ch_2', kind: 'charge', amount: 1000 } });
  assert.equal(service().provider.calls.charge, 2);
});

it('a request sent twice, its key in the payload (meta.requestId): one refund, the same reply', async () => {
  const requestId = randomUUID();
  const first = await refund(requestId);
  assert.deepEqual(first, { reply: { id: 're_1', kind: 'refund', amount: -400 } });
  assert.deepEqual(await refund(requestId), first);
  assert.equal(service().provider.calls.refund, 1);
});

it('the key again with another payload: idempotency_key_reused (422), from either place; nothing runs', async () => {
  const [key, requestId] = [randomUUID(), randomUUID()];
  await charge(key, 1000);
  await refund(requestId, 400);
  assert.deepEqual(await charge(key, 2500), { error: REUSED });
  assert.deepEqual(await refund(requestId, 401), { error: REUSED });
  assert.deepEqual(service().provider.calls, { charge: 1, refund: 1 });
});

it('no key where the handler looks for it: idempotency_key_missing (400); nothing runs', async () => {
  assert.deepEqual(await charge(undefined), { error: MISSING });
  assert.deepEqual(await refund(undefined), { error: MISSING });
  assert.deepEqual(service().provider.calls, { charge: 0, refund: 0 });
});

it('a repeat while the first still runs: request_in_progress (409) with retryAfter; one charge', async () => {
  const { entered, release } = holdCharges(service());
  const key = randomUUID();
  const first = charge(key);
  await entered;
  try {
    assert.deepEqual(await charge(key), { error: IN_PROGRESS });
  } finally {
    release();
  }
  assert.deepEqual(await first, { reply: { id: 'ch_1', kind: 'charge', amount: 1000 } });
  // Sent again after retryAfter, as the error says: the stored reply.
  assert.deepEqual(await charge(key), await first);
  assert.equal(service().provider.calls.charge, 1);
});

/**
 * Holds the provider's charges until `release`: the first request stays in flight while the test sends another.
 * `entered` resolves once a held charge has started (its effect counted).
 */
function holdCharges(running: RunningService): { entered: Promise<void>; release: () => void } {
  const entered = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const provider = running.provider;
  const original = provider.charge.bind(provider);
  mock.method(provider, 'charge', async (amount: number, currency: string) => {
    const reply = await original(amount, currency);
    entered.resolve();
    await released.promise;
    return reply;
  });
  return { entered: entered.promise, release: () => released.resolve() };
}
