// Mutations over real HTTP: a retry with the same key returns the first result and makes no second charge or
// refund, whether the key is an argument or the Idempotency-Key header; the errors a client gets otherwise.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it, type TestContext } from 'node:test';
import { assertIdempotencyError, startApi, type RunningApi } from './support.js';

const CREATE_CHARGE = `mutation CreateCharge($input: CreateChargeInput!) {
  createCharge(input: $input) { id amount currency }
}`;
const REFUND_CHARGE = `mutation RefundCharge($chargeId: ID!, $amount: Int!) {
  refundCharge(chargeId: $chargeId, amount: $amount) { id chargeId amount }
}`;

/**
 * The `extensions` of each refusal: the HTTP problem's status and code, its detail (also the error's message), and
 * `retryAfter` where a retry should wait.
 */
const extensions = (code: keyof typeof PROBLEMS, retryAfter?: number) => {
  const [status, message] = PROBLEMS[code];
  return { status, code, message, ...(retryAfter === undefined ? {} : { retryAfter }) };
};
const PROBLEMS = {
  idempotency_key_reused: [
    422,
    'This Idempotency-Key was already used with different request parameters; use a new key for a new request',
  ],
  request_in_progress: [
    409,
    'A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After',
  ],
  idempotency_key_missing: [400, 'An idempotency key is required'],
} as const;

const createCharge = (api: RunningApi, requestId: string, amount = 1000) =>
  api.post(CREATE_CHARGE, { input: { requestId, amount, currency: 'eur' } });
const refundCharge = (api: RunningApi, key: string | undefined, amount = 400) =>
  api.post(REFUND_CHARGE, { chargeId: 'ch_1', amount }, key === undefined ? {} : { 'Idempotency-Key': key });

it('createCharge retried with its requestId: the same charge, made once', async () => {
  await using api = await startApi();
  const requestId = randomUUID();
  const first = await createCharge(api, requestId);
  const charged = { createCharge: { id: 'ch_1', amount: 1000, currency: 'eur' } };
  assert.deepEqual(first, { status: 200, body: { data: charged } });
  assert.deepEqual(await createCharge(api, requestId), first);
  assert.equal(api.provider.charges.length, 1);

  // What the API says it charged, too; another requestId is another charge.
  await createCharge(api, randomUUID());
  const { body } = await api.post('{ charges { id } }', {});
  assert.deepEqual(body, { data: { charges: [{ id: 'ch_1' }, { id: 'ch_2' }] } });
});

it('refundCharge retried with its Idempotency-Key header: the same refund, made once', async () => {
  await using api = await startApi();
  const key = randomUUID();
  const first = await refundCharge(api, key);
  const refunded = { refundCharge: { id: 're_1', chargeId: 'ch_1', amount: 400 } };
  assert.deepEqual(first, { status: 200, body: { data: refunded } });
  assert.deepEqual(await refundCharge(api, key), first);
  assert.equal(api.provider.refunds.length, 1);
});

it('the key again with other arguments: extensions.code idempotency_key_reused, from either place', async () => {
  await using api = await startApi();
  const [requestId, key] = [randomUUID(), randomUUID()];
  await createCharge(api, requestId, 1000);
  await refundCharge(api, key, 400);

  const reused = extensions('idempotency_key_reused');
  assertIdempotencyError(await createCharge(api, requestId, 2500), 'createCharge', reused);
  assertIdempotencyError(await refundCharge(api, key, 401), 'refundCharge', reused);
  // Nothing ran again: one charge, one refund.
  assert.deepEqual([api.provider.charges.length, api.provider.refunds.length], [1, 1]);
});

it('refundCharge without the header: extensions.code idempotency_key_missing; nothing runs', async () => {
  await using api = await startApi();
  assertIdempotencyError(
    await refundCharge(api, undefined),
    'refundCharge',
    extensions('idempotency_key_missing'),
  );
  assert.equal(api.provider.refunds.length, 0);
});

it('a retry while the first still runs (inFlight: raise): request_in_progress, extensions.retryAfter; one charge', async (t) => {
  await using api = await startApi();
  const { made, release } = holdCharges(t, api);
  const requestId = randomUUID();
  const first = createCharge(api, requestId);
  await made;
  try {
    const retry = await createCharge(api, requestId);
    assertIdempotencyError(retry, 'createCharge', extensions('request_in_progress', 1));
  } finally {
    release();
  }
  const done = await first;
  assert.deepEqual(done.body, { data: { createCharge: { id: 'ch_1', amount: 1000, currency: 'eur' } } });
  // Retried after retryAfter, as the error says: the first result.
  assert.deepEqual(await createCharge(api, requestId), done);
  assert.equal(api.provider.charges.length, 1);
});

/**
 * Makes the provider's charges wait, once made, for `release()`: the first mutation stays in flight while the test
 * sends another. `made` resolves once a held charge has been made. The test's own mock: restored when it ends.
 */
function holdCharges(t: TestContext, { provider }: RunningApi): { made: Promise<void>; release: () => void } {
  const charge = provider.charge.bind(provider);
  const made = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  t.mock.method(provider, 'charge', (amount: number, currency: string) =>
    charge(amount, currency).then(async (done) => {
      made.resolve();
      await gate.promise;
      return done;
    }),
  );
  return { made: made.promise, release: gate.resolve };
}
